/**
 * The organisation's calendar day the assistant tools filter by (`due: today`, `overdue_close`):
 * the start of a day in a time zone, across offsets and daylight-saving changes.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Calendar from "../src/internal/dates.js"

const { addDays, dateIn, startOfDay } = Calendar

/**
 * The calendar as it was written before it stood on effect/DateTime: the local date formatted by
 * Intl, and a day's start found by a binary search over the seconds in which it may fall.
 */
const reference = (() => {
  const formatters = new Map<string, Intl.DateTimeFormat>()
  const dateIn = (timeZone: string, epochMs: number): string => {
    let formatter = formatters.get(timeZone)
    if (formatter === undefined) {
      formatter = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
      formatters.set(timeZone, formatter)
    }
    return formatter.format(epochMs)
  }
  const startOfDay = (timeZone: string, date: string): number => {
    const midnightUtc = Date.parse(`${date}T00:00:00.000Z`)
    let low = (midnightUtc - 15 * 3_600_000) / 1000
    let high = (midnightUtc + 13 * 3_600_000) / 1000
    while (low < high) {
      const middle = Math.floor((low + high) / 2)
      if (dateIn(timeZone, middle * 1000) < date) low = middle + 1
      else high = middle
    }
    return low * 1000
  }
  return { dateIn, startOfDay }
})()

/** Every zone this runtime knows: their daylight-saving rules differ in date, hour and direction. */
const ALL_ZONES = Intl.supportedValuesOf("timeZone")
const instant = fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) })

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

  it("dates an instant as the Intl calendar does, in every zone", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_ZONES), instant, (zone, at) => {
        expect(dateIn(zone, at)).toBe(reference.dateIn(zone, at))
      }),
      { numRuns: 1500 }
    )
  })

  it("starts a day where the search over Intl's dates starts it, in every zone and across daylight-saving changes", () => {
    // Days around an instant: the day it falls in and its neighbours, so that a change on either side is met.
    fc.assert(
      fc.property(fc.constantFrom(...ALL_ZONES), instant, fc.integer({ min: -1, max: 1 }), (zone, at, shift) => {
        const date = addDays(reference.dateIn(zone, at), shift)
        expect(startOfDay(zone, date)).toBe(reference.startOfDay(zone, date))
      }),
      { numRuns: 1500 }
    )
  })

  it("starts the days of every daylight-saving change of the zones ZONES names as the search does", () => {
    // A change is where the offset at the start of a day differs from the one at its end.
    const checked = ZONES.flatMap((zone) =>
      Array.from({ length: 365 * 2 }, (_, day) => addDays("2025-01-01", day)).filter((date) => {
        const start = reference.startOfDay(zone, date)
        const next = reference.startOfDay(zone, addDays(date, 1))
        if (next - start === 86_400_000) return false
        expect(startOfDay(zone, date), `${zone} ${date}`).toBe(start)
        expect(startOfDay(zone, addDays(date, 1)), `${zone} ${addDays(date, 1)}`).toBe(next)
        return true
      })
    )
    expect(checked.length).toBeGreaterThan(10)
  })
})
