import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { afterAttempt, CLOSED, OPEN_AFTER } from "../src/Webhooks/Circuit.js"
import { JITTER, LADDER_MS } from "../src/Webhooks/RetryLadder.js"

const NOW = Date.parse("2026-11-23T12:00:00.000Z")
const jitter = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })
const streak = fc.integer({ min: 0, max: 1000 })

describe("a hook's circuit", () => {
  it("closes on any answer, whatever came before", () => {
    fc.assert(
      fc.property(streak, jitter, (unanswered, draw) => {
        expect(afterAttempt({ answered: true, unanswered, now: NOW, jitter: draw })).toEqual(CLOSED)
      })
    )
  })

  it("stays closed, counting, until the third unanswered attempt in a row", () => {
    expect(OPEN_AFTER).toBe(3)
    expect(afterAttempt({ answered: false, unanswered: 0, now: NOW, jitter: 0.5 })).toEqual({
      unanswered: 1,
      pausedUntil: null
    })
    expect(afterAttempt({ answered: false, unanswered: 1, now: NOW, jitter: 0.5 })).toEqual({
      unanswered: 2,
      pausedUntil: null
    })
  })

  it("then pauses the hook on the retry ladder, one step further for each probe left unanswered", () => {
    fc.assert(
      fc.property(fc.integer({ min: OPEN_AFTER - 1, max: 1000 }), jitter, (before, draw) => {
        const state = afterAttempt({ answered: false, unanswered: before, now: NOW, jitter: draw })
        const step = LADDER_MS[Math.min(before + 2 - OPEN_AFTER, LADDER_MS.length - 1)]!
        expect(state.unanswered).toBe(before + 1)
        expect(state.pausedUntil! - NOW).toBeGreaterThanOrEqual(step)
        expect(state.pausedUntil! - NOW).toBeLessThanOrEqual(step * (1 + JITTER))
      })
    )
    const pauses = [2, 3, 4].map(
      (before) => afterAttempt({ answered: false, unanswered: before, now: NOW, jitter: 0 }).pausedUntil! - NOW
    )
    expect(pauses).toEqual([5_000, 300_000, 1_800_000])
  })
})
