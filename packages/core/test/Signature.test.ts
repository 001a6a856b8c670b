import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { generateSecret, sign, verifySignature } from "../src/Webhooks/Signature.js"

const secret = fc.string({ minLength: 1, maxLength: 60 })
const T = 1_795_000_000

const verify = (...args: Parameters<typeof verifySignature>) => Effect.runPromise(verifySignature(...args))

describe("webhook signatures", () => {
  it("generates whsec_ secrets of 43 base62 characters", () => {
    const secrets = Array.from({ length: 20 }, () => Effect.runSync(generateSecret))
    for (const s of secrets) expect(s).toMatch(/^whsec_[0-9A-Za-z]{43}$/)
    expect(new Set(secrets).size).toBe(20)
  })

  it("verifies with any signing secret, and with nothing else", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string(),
        fc.uniqueArray(secret, { minLength: 1, maxLength: 3 }),
        secret,
        async (body, secrets, other) => {
          const header = await Effect.runPromise(sign(secrets, T, body))
          expect(header.split(",")).toHaveLength(secrets.length + 1)
          const options = { toleranceSeconds: 300, now: T }
          for (const s of secrets) expect(await verify(body, header, [s], options)).toBe(true)
          if (!secrets.includes(other)) expect(await verify(body, header, [other], options)).toBe(false)
          expect(await verify(`${body}.`, header, secrets, options)).toBe(false)
          expect(await verify(new TextEncoder().encode(body), header, secrets, options)).toBe(true)
        }
      ),
      { numRuns: 50 }
    )
  })

  it("refuses signatures outside the tolerance and malformed headers", async () => {
    const header = await Effect.runPromise(sign(["whsec_a"], T, "{}"))
    expect(await verify("{}", header, "whsec_a", { toleranceSeconds: 300, now: T + 300 })).toBe(true)
    expect(await verify("{}", header, "whsec_a", { toleranceSeconds: 300, now: T + 301 })).toBe(false)
    expect(await verify("{}", header, "whsec_a", { toleranceSeconds: 300, now: T - 301 })).toBe(false)
    for (const bad of [undefined, null, "", "t=abc,v1=00", `v1=${"0".repeat(64)}`, `t=${T}`])
      expect(await verify("{}", bad, "whsec_a", { toleranceSeconds: 300, now: T })).toBe(false)
  })

  it("reads Effect's Clock when no time is given", async () => {
    const header = await Effect.runPromise(sign(["whsec_a"], T, "{}"))
    const at = (seconds: number) =>
      Effect.runPromise(
        Effect.gen(function* () {
          yield* TestClock.setTime(seconds * 1000)
          return yield* verifySignature("{}", header, "whsec_a", { toleranceSeconds: 300 })
        }).pipe(Effect.provide(TestContext.TestContext))
      )
    expect(await at(T + 300)).toBe(true)
    expect(await at(T + 301)).toBe(false)
  })
})
