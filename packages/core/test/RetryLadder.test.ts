import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type AttemptOutcome,
  DISABLE_AFTER_FAILING_MS,
  decide,
  JITTER,
  LADDER_MS,
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter
} from "../src/Webhooks/RetryLadder.js"

const NOW = Date.parse("2026-11-23T12:00:00.000Z")

const failures: fc.Arbitrary<AttemptOutcome> = fc.oneof(
  fc
    .constantFrom(400, 401, 404, 408, 500, 502, 504, 301, 302)
    .map((status): AttemptOutcome => ({ _tag: "Response", status, retryAfter: undefined })),
  fc.string().map((error): AttemptOutcome => ({ _tag: "Failure", error }))
)
const attempts = fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 })
const jitter = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })
const recentStreak = fc.option(fc.integer({ min: NOW - DISABLE_AFTER_FAILING_MS + 1, max: NOW }), { nil: null })

describe("the webhook retry ladder", () => {
  it("is the Standard Webhooks schedule: at once, then 5 s up to 24 h, about three days in all", () => {
    expect(LADDER_MS.map((ms) => ms / 1000)).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400])
    const total = LADDER_MS.reduce((sum, ms) => sum + ms, 0)
    expect(total / 86_400_000).toBeGreaterThan(3)
    expect(total / 86_400_000).toBeLessThan(3.5)
  })

  it("retries a failure after its step plus at most 10 % jitter, keeping the failure streak", () => {
    fc.assert(
      fc.property(failures, attempts, jitter, recentStreak, (outcome, n, draw, since) => {
        const decision = decide({ outcome, attempts: n, now: NOW, jitter: draw, failingSince: since })
        expect(decision.status).toBe("pending")
        expect(decision.disable).toBeNull()
        expect(decision.failingSince).toBe(since ?? NOW)
        const delay = decision.nextAttemptAt! - NOW
        expect(delay).toBeGreaterThanOrEqual(LADDER_MS[n]!)
        expect(delay).toBeLessThanOrEqual(LADDER_MS[n]! * (1 + JITTER))
      })
    )
  })

  it("marks the delivery failed after the last attempt", () => {
    fc.assert(
      fc.property(failures, jitter, recentStreak, (outcome, draw, since) => {
        const decision = decide({ outcome, attempts: MAX_ATTEMPTS, now: NOW, jitter: draw, failingSince: since })
        expect(decision).toMatchObject({ status: "failed", nextAttemptAt: null, disable: null })
      })
    )
  })

  it("ends the streak on any 2xx", () => {
    fc.assert(
      fc.property(fc.integer({ min: 200, max: 299 }), attempts, recentStreak, (status, n, since) => {
        expect(
          decide({
            outcome: { _tag: "Response", status, retryAfter: "60" },
            attempts: n,
            now: NOW,
            jitter: 0.5,
            failingSince: since
          })
        ).toEqual({ status: "succeeded", nextAttemptAt: null, disable: null, failingSince: null })
      })
    )
  })

  it("waits what Retry-After asks on 429 and 503, within 1 s and 24 h", () => {
    fc.assert(
      fc.property(fc.constantFrom(429, 503), fc.integer({ min: 0, max: 500_000 }), attempts, (status, seconds, n) => {
        const decision = decide({
          outcome: { _tag: "Response", status, retryAfter: String(seconds) },
          attempts: n,
          now: NOW,
          jitter: 0.5,
          failingSince: null
        })
        expect(decision.nextAttemptAt! - NOW).toBe(Math.min(Math.max(seconds * 1000, 1000), MAX_RETRY_AFTER_MS))
      })
    )
    const date = new Date(NOW + 90_000).toUTCString()
    expect(parseRetryAfter(date, NOW)).toBe(90_000)
    expect(parseRetryAfter("soon", NOW)).toBeUndefined()
  })

  it("disables the subscription on 410, and after five days of nothing but failures", () => {
    const gone = decide({
      outcome: { _tag: "Response", status: 410, retryAfter: undefined },
      attempts: 1,
      now: NOW,
      jitter: 0,
      failingSince: null
    })
    expect(gone).toMatchObject({ status: "failed", nextAttemptAt: null, disable: expect.stringContaining("410") })
    fc.assert(
      fc.property(failures, attempts, fc.integer({ min: 0, max: 30 * 86_400_000 }), (outcome, n, extra) => {
        const since = NOW - DISABLE_AFTER_FAILING_MS - extra
        const decision = decide({ outcome, attempts: n, now: NOW, jitter: 0, failingSince: since })
        expect(decision.status).toBe("failed")
        expect(decision.disable).toContain("5 days")
      })
    )
  })
})
