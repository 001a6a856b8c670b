/**
 * `takeFrom`, the rolling window that the memory store and the embedded store keep themselves:
 * each take against a plain model (filter the times still in the window, count, insert in order),
 * over sequences whose clocks may run behind one another, as several callers' clocks do.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { takeFrom } from "../src/Access/RateLimiter.js"

const model = (times: ReadonlyArray<number>, now: number, limit: number, windowMs: number, spend: boolean) => {
  const live = times.filter((at) => at > now - windowMs)
  const admitted = live.length < limit
  const window = admitted && spend ? [...live, now].sort((a, b) => a - b) : live
  return {
    decision: {
      admitted,
      remaining: Math.max(0, limit - window.length),
      retryAfterMs: admitted ? 0 : live.length === 0 ? windowMs : live[0]! + windowMs - now
    },
    window
  }
}

const take = fc.record({
  // Mostly forward, sometimes behind the last take (another caller's clock), sometimes a window on.
  step: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: -200, max: -1 }), fc.constant(1_000)),
  spend: fc.boolean()
})

describe("takeFrom", () => {
  it("decides and keeps the window as a plain rolling window does, applied in place", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.array(take, { maxLength: 60 }),
        (limit, windowMs, takes) => {
          let now = 10_000
          const times: Array<number> = []
          let expected: ReadonlyArray<number> = []
          for (const { spend, step } of takes) {
            now += step
            const want = model(expected, now, limit, windowMs, spend)
            const got = takeFrom(times, { now, limit, windowMs, spend })
            expect(got.decision).toEqual(want.decision)
            times.splice(0, got.expired)
            if (got.insertAt !== undefined) times.splice(got.insertAt, 0, now)
            expect(times).toEqual(want.window)
            expected = want.window
          }
        }
      )
    )
  })

  it("never records a report or a refusal", () => {
    const times = [1, 2, 3]
    expect(takeFrom(times, { now: 4, limit: 3, windowMs: 10, spend: true })).toEqual({
      decision: { admitted: false, remaining: 0, retryAfterMs: 7 },
      expired: 0,
      insertAt: undefined
    })
    expect(takeFrom(times, { now: 4, limit: 5, windowMs: 10, spend: false }).insertAt).toBeUndefined()
  })
})
