/**
 * The organisation's calendar day the assistant tools filter by (`due: today`, `overdue_close`):
 * the start of a day in a time zone, across offsets and daylight-saving changes.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Calendar from "../src/internal/dates.js"

const { addDays, dateIn, startOfDay } = Calendar

const ZONES = [
  "UTC",
  "Europe/Prague",
  "America/New_York",
  "America/Sao_Paulo",
  "Asia/Tokyo",
  "Asia/Kolkata",
  "Australia/Lord_Howe",
  "Pacific/Kiritimati",
  "Pacific/Pago_Pago",
  "America/Havana"
]

describe("calendar", () => {
  it("finds the first instant of a day in the zone", () => {
    expect(new Date(startOfDay("Europe/Prague", "2026-07-01")).toISOString()).toBe("2026-06-30T22:00:00.000Z")
    expect(new Date(startOfDay("Europe/Prague", "2026-01-15")).toISOString()).toBe("2026-01-14T23:00:00.000Z")
    expect(new Date(startOfDay("Asia/Tokyo", "2026-11-22")).toISOString()).toBe("2026-11-21T15:00:00.000Z")
    // The day of a spring-forward change still starts at local midnight.
    expect(new Date(startOfDay("America/New_York", "2026-03-08")).toISOString()).toBe("2026-03-08T05:00:00.000Z")
    expect(new Date(startOfDay("America/New_York", "2026-03-09")).toISOString()).toBe("2026-03-09T04:00:00.000Z")
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01")
  })

  it("puts every instant inside the day it belongs to, whose start is the first instant of that date", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
        (zone, instant) => {
          const date = dateIn(zone, instant)
          const start = startOfDay(zone, date)
          const next = startOfDay(zone, addDays(date, 1))
          expect(start).toBeLessThanOrEqual(instant)
          expect(instant).toBeLessThan(next)
          expect(dateIn(zone, start)).toBe(date)
          expect(dateIn(zone, start - 1)).not.toBe(date)
        }
      ),
      { numRuns: 2000 }
    )
  })
})
