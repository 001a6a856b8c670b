import * as Effect from "effect/Effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { generateSecret, sign, verifySignature } from "../src/Webhooks/Signature.js"

const secret = fc.string({ minLength: 1, maxLength: 60 })
const T = 1_795_000_000

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
          for (const s of secrets) expect(await verifySignature(body, header, [s], options)).toBe(true)
          if (!secrets.includes(other)) expect(await verifySignature(body, header, [other], options)).toBe(false)
          expect(await verifySignature(`${body}.`, header, secrets, options)).toBe(false)
          expect(await verifySignature(new TextEncoder().encode(body), header, secrets, options)).toBe(true)
        }
      ),
      { numRuns: 50 }
    )
  })

  it("refuses signatures outside the tolerance and malformed headers", async () => {
    const header = await Effect.runPromise(sign(["whsec_a"], T, "{}"))
    expect(await verifySignature("{}", header, "whsec_a", { toleranceSeconds: 300, now: T + 300 })).toBe(true)
    expect(await verifySignature("{}", header, "whsec_a", { toleranceSeconds: 300, now: T + 301 })).toBe(false)
    expect(await verifySignature("{}", header, "whsec_a", { toleranceSeconds: 300, now: T - 301 })).toBe(false)
    for (const bad of [undefined, null, "", "t=abc,v1=00", `v1=${"0".repeat(64)}`, `t=${T}`])
      expect(await verifySignature("{}", bad, "whsec_a", { toleranceSeconds: 300, now: T })).toBe(false)
  })
})
