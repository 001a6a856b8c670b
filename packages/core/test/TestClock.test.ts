import { BusinessClock } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { TestClock } = BusinessClock
type Duration = BusinessClock.TestClock.Duration

const HOUR = 3_600_000
const DAY = 24 * HOUR

const instant = fc.integer({ min: Date.parse("2000-01-01T00:00:00Z"), max: Date.parse("2100-01-01T00:00:00Z") })
const iso = (ms: number) => new Date(ms).toISOString()

/** Durations of fixed length (no years or months): weeks, days, hours, minutes, whole seconds. */
const exact: fc.Arbitrary<Duration> = fc.record({
  years: fc.constant(0),
  months: fc.constant(0),
  weeks: fc.nat(20),
  days: fc.nat(400),
  hours: fc.nat(100),
  minutes: fc.nat(1000),
  seconds: fc.nat(100_000)
})

const any: fc.Arbitrary<Duration> = fc.record({
  years: fc.nat(5),
  months: fc.nat(30),
  weeks: fc.nat(20),
  days: fc.nat(400),
  hours: fc.nat(100),
  minutes: fc.nat(1000),
  seconds: fc.nat(100_000)
})

const lengthOf = (d: Duration) =>
  (d.weeks * 7 + d.days) * DAY + d.hours * HOUR + d.minutes * 60_000 + Math.round(d.seconds * 1000)

const parsed = (text: string) => Either.getOrThrow(TestClock.parseDuration(text))

describe("TestClock.parseDuration", () => {
  it("reads ISO 8601 durations", () => {
    expect(parsed("P3D")).toEqual({ ...TestClock.ZERO, days: 3 })
    expect(parsed("PT2H")).toEqual({ ...TestClock.ZERO, hours: 2 })
    expect(parsed("P1M")).toEqual({ ...TestClock.ZERO, months: 1 })
    expect(parsed("PT1M")).toEqual({ ...TestClock.ZERO, minutes: 1 })
    expect(parsed("P2W")).toEqual({ ...TestClock.ZERO, weeks: 2 })
    expect(parsed("P1Y2M3DT4H5M6.5S")).toEqual({
      years: 1,
      months: 2,
      weeks: 0,
      days: 3,
      hours: 4,
      minutes: 5,
      seconds: 6.5
    })
    expect(parsed("PT0,25S")).toEqual({ ...TestClock.ZERO, seconds: 0.25 })
    expect(parsed("P0D")).toEqual(TestClock.ZERO)
  })

  it("refuses what is not one, negative and empty durations included", () => {
    for (const text of [
      "",
      "P",
      "PT",
      "P1DT",
      "3 days",
      "p3d",
      "-P1D",
      "P-1D",
      "P1.5D",
      "PT1.5H",
      "P3",
      "D3P",
      "P1D2M"
    ]) {
      expect(Either.isLeft(TestClock.parseDuration(text)), text).toBe(true)
    }
  })

  it("reads back what it writes", () => {
    fc.assert(
      fc.property(any, (duration) => {
        expect(parsed(TestClock.formatDuration(duration))).toEqual(duration)
      })
    )
  })
})

describe("TestClock.addDuration", () => {
  it("adds fixed-length durations exactly, and in any split", () => {
    fc.assert(
      fc.property(instant, exact, exact, (from, a, b) => {
        expect(TestClock.addDuration(from, a)).toBe(from + lengthOf(a))
        expect(TestClock.addDuration(TestClock.addDuration(from, a), b)).toBe(from + lengthOf(a) + lengthOf(b))
      })
    )
  })

  it("never moves backwards", () => {
    fc.assert(
      fc.property(instant, any, (from, d) => {
        expect(TestClock.addDuration(from, d)).toBeGreaterThanOrEqual(from)
      })
    )
  })

  it("adds calendar months in UTC, keeping the time of day and clamping to the month's last day", () => {
    const at = (text: string) => Date.parse(text)
    const month = { ...TestClock.ZERO, months: 1 }
    expect(iso(TestClock.addDuration(at("2026-01-31T10:30:00.000Z"), month))).toBe("2026-02-28T10:30:00.000Z")
    expect(iso(TestClock.addDuration(at("2028-01-31T10:30:00.000Z"), month))).toBe("2028-02-29T10:30:00.000Z")
    expect(iso(TestClock.addDuration(at("2026-12-15T00:00:00.000Z"), month))).toBe("2027-01-15T00:00:00.000Z")
    expect(iso(TestClock.addDuration(at("2028-02-29T00:00:00.000Z"), { ...TestClock.ZERO, years: 1 }))).toBe(
      "2029-02-28T00:00:00.000Z"
    )
    expect(iso(TestClock.addDuration(at("2026-01-31T00:00:00.000Z"), parsed("P1M1D")))).toBe("2026-03-01T00:00:00.000Z")
  })

  it("lands on the same day of the month for every month it adds (when that day exists everywhere)", () => {
    fc.assert(
      fc.property(instant, fc.nat(240), (from, months) => {
        const start = new Date(from)
        fc.pre(start.getUTCDate() <= 28)
        const end = new Date(TestClock.addDuration(from, { ...TestClock.ZERO, months }))
        expect(end.getUTCDate()).toBe(start.getUTCDate())
        expect(end.getUTCFullYear() * 12 + end.getUTCMonth()).toBe(
          start.getUTCFullYear() * 12 + start.getUTCMonth() + months
        )
        expect(end.getTime() % DAY).toBe(start.getTime() % DAY)
      })
    )
  })
})

describe("TestClock.nowOf and next", () => {
  it("is the real time without a clock or on real time, the frozen instant otherwise (which does not tick)", () => {
    fc.assert(
      fc.property(instant, instant, (frozen, real) => {
        expect(TestClock.nowOf(undefined, real)).toBe(real)
        expect(TestClock.nowOf({ frozen_at: null }, real)).toBe(real)
        expect(TestClock.nowOf({ frozen_at: iso(frozen) }, real)).toBe(frozen)
        expect(TestClock.nowOf({ frozen_at: iso(frozen) }, real + DAY)).toBe(frozen)
      })
    )
  })

  it("advances from the frozen instant, or from the real time when not frozen", () => {
    fc.assert(
      fc.property(instant, instant, exact, (frozen, real, d) => {
        const text = TestClock.formatDuration(d)
        expect(TestClock.next({ frozen_at: iso(frozen) }, { advance_by: text }, real)).toEqual(
          Either.right(frozen + lengthOf(d))
        )
        expect(TestClock.next({ frozen_at: null }, { advance_by: text }, real)).toEqual(
          Either.right(real + lengthOf(d))
        )
      })
    )
  })

  it("advancing twice equals advancing once by the sum", () => {
    fc.assert(
      fc.property(instant, instant, exact, exact, (frozen, real, a, b) => {
        const step = (at: number, d: Duration) =>
          Either.getOrThrow(TestClock.next({ frozen_at: iso(at) }, { advance_by: TestClock.formatDuration(d) }, real))
        const sum: Duration = {
          years: 0,
          months: 0,
          weeks: a.weeks + b.weeks,
          days: a.days + b.days,
          hours: a.hours + b.hours,
          minutes: a.minutes + b.minutes,
          seconds: a.seconds + b.seconds
        }
        expect(step(step(frozen, a), b)).toBe(step(frozen, sum))
      })
    )
  })

  it("freezes a clock on real time anywhere, but moves a frozen clock only forward", () => {
    fc.assert(
      fc.property(instant, instant, instant, (frozen, target, real) => {
        expect(TestClock.next({ frozen_at: null }, { frozen_at: iso(target) }, real)).toEqual(Either.right(target))
        const moved = TestClock.next({ frozen_at: iso(frozen) }, { frozen_at: iso(target) }, real)
        if (target >= frozen) expect(moved).toEqual(Either.right(target))
        else expect(Either.isLeft(moved) && moved.left.field).toBe("frozen_at")
      })
    )
  })

  it("refuses a malformed duration and one beyond a hundred years, naming advance_by", () => {
    const clock = { frozen_at: "2026-01-01T00:00:00.000Z" }
    for (const advance_by of ["three days", "P", "P101Y", "P1300M"]) {
      const refused = TestClock.next(clock, { advance_by }, 0)
      expect(Either.isLeft(refused) && refused.left.field, advance_by).toBe("advance_by")
    }
    expect(Either.isRight(TestClock.next(clock, { advance_by: "P99Y" }, 0))).toBe(true)
  })
})
