import { People } from "@crm/core"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import * as ScryptPasswordHasher from "../src/ScryptPasswordHasher.js"

const cheap = ScryptPasswordHasher.make({ cost: 2 ** 10 })
const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)

const ENCODED = /^scrypt\$N=1024,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/

describe("ScryptPasswordHasher", () => {
  it("hashes to a self-describing string with a 16-byte salt and a 32-byte key, salted afresh each time", async () => {
    const first = await run(cheap.hash("correct horse battery"))
    const second = await run(cheap.hash("correct horse battery"))
    expect(first).toMatch(ENCODED)
    expect(second).toMatch(ENCODED)
    expect(first).not.toBe(second)
    expect(first).not.toContain("correct horse")
  })

  it("verifies the password it hashed and no other", async () => {
    const stored = await run(cheap.hash("correct horse battery"))
    expect(await run(cheap.verify("correct horse battery", stored))).toBe(true)
    expect(await run(cheap.verify("correct horse batterY", stored))).toBe(false)
    expect(await run(cheap.verify("", stored))).toBe(false)
  })

  it("treats a password composed differently (NFC and NFD) as the same", async () => {
    const stored = await run(cheap.hash("Příliš žluťoučký kůň".normalize("NFD")))
    expect(await run(cheap.verify("Příliš žluťoučký kůň".normalize("NFC"), stored))).toBe(true)
  })

  it("reads the parameters from the stored string, so hashes made at another cost still verify", async () => {
    const stronger = ScryptPasswordHasher.make({ cost: 2 ** 11 })
    const stored = await run(stronger.hash("a password of ours"))
    expect(stored).toContain("$N=2048,r=8,p=1$")
    expect(await run(cheap.verify("a password of ours", stored))).toBe(true)
    expect(await run(cheap.verify("another password", stored))).toBe(false)
  })

  it("refuses, without running, a stored value that asks for more than the bound", async () => {
    const stored = await run(cheap.hash("a password of ours"))
    const [, , salt, key] = stored.split("$")
    for (const parameters of ["N=262144,r=8,p=1", "N=1048576,r=8,p=1", "N=131072,r=16,p=1", "N=1024,r=8,p=9"]) {
      const started = performance.now()
      expect(await run(cheap.verify("a password of ours", `scrypt$${parameters}$${salt}$${key}`))).toBe(false)
      expect(performance.now() - started).toBeLessThan(50)
    }
    // The bound itself is allowed: 2^17 at r=8 runs (and, being another cost, does not match).
    expect(ScryptPasswordHasher.decode(`scrypt$N=131072,r=8,p=1$${salt}$${key}`)).toBeDefined()
  })

  it("answers false, never fails, for anything that is not one of its hashes", async () => {
    const stored = await run(cheap.hash("a password of ours"))
    const [, parameters, salt, key] = stored.split("$")
    const hostile = [
      "",
      "plain text",
      "$2b$12$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234",
      `scrypt$N=1000,r=8,p=1$${salt}$${key}`,
      `scrypt$N=0,r=8,p=1$${salt}$${key}`,
      `scrypt$N=1024,r=0,p=1$${salt}$${key}`,
      `scrypt$N=1024,r=8,p=0$${salt}$${key}`,
      `scrypt$N=99999999,r=8,p=1$${salt}$${key}`,
      `scrypt$${parameters}$${salt}`,
      `scrypt$${parameters}$short$${key}`,
      `scrypt$${parameters}$${salt}$${key}$extra`,
      `scrypt$${parameters}$${salt}$${key.slice(0, -1)}!`,
      `SCRYPT$${parameters}$${salt}$${key}`,
      `scrypt$${parameters}$${salt}$${"A".repeat(10_000)}`
    ]
    for (const value of hostile) expect(await run(cheap.verify("a password of ours", value))).toBe(false)
  })

  it("answers false for a key changed by one character", async () => {
    const stored = await run(cheap.hash("a password of ours"))
    const last = stored.at(-2) === "A" ? "B" : "A"
    expect(await run(cheap.verify("a password of ours", `${stored.slice(0, -2)}${last}${stored.at(-1)}`))).toBe(false)
  })

  it("refuses a cost that is not a power of two or above the bound", () => {
    expect(() => ScryptPasswordHasher.make({ cost: 1000 })).toThrow(/power of two/)
    expect(() => ScryptPasswordHasher.make({ cost: 2 ** 18 })).toThrow(/power of two/)
  })

  it("serves N=2^15, r=8, p=1 as the layer, off the event loop", async () => {
    const hasher = await run(Effect.provide(People.PasswordHasher, ScryptPasswordHasher.layer))
    let turns = 0
    const timer = setInterval(() => turns++, 1)
    const stored = await run(hasher.hash("a password of ours"))
    const checked = await run(hasher.verify("a password of ours", stored))
    clearInterval(timer)
    expect(stored).toMatch(/^scrypt\$N=32768,r=8,p=1\$/)
    expect(checked).toBe(true)
    // Two derivations of about 80 ms each ran on the thread pool while the loop kept turning.
    expect(turns).toBeGreaterThan(5)
  })

  it("leaves libuv's pool to other work while a burst of checks queues", async () => {
    const hasher = ScryptPasswordHasher.make({ cost: ScryptPasswordHasher.DEFAULT_COST })
    const stored = await run(hasher.hash("a password of ours"))
    const finished: Array<string> = []
    const checks = Array.from({ length: 8 }, (_, n) =>
      run(hasher.verify(`guess ${n}`, stored)).then(() => finished.push("check"))
    )
    // A digest is a pool job too (what a new API key costs): with every check on the pool ahead of
    // it, it would wait for the first four to end.
    const digest = globalThis.crypto.subtle
      .digest("SHA-256", new Uint8Array(1 << 16))
      .then(() => finished.push("digest"))
    await Promise.all([...checks, digest])
    expect(finished.indexOf("digest")).toBeLessThan(2)
  })
})
