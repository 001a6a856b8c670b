/**
 * A test-mode organisation's clock, as pure rules: what "now" is for it, ISO 8601 durations, and
 * how a freeze or an advance moves the clock. No services, no I/O: the real time comes in as a
 * number, so every rule here can be tested with any instant.
 *
 * A frozen clock does not tick (as Stripe's test clocks do not): its time moves only when it is
 * advanced, frozen at a later instant, or returned to real time.
 */
import * as Either from "effect/Either"

/** Present on a test-mode organisation only; `frozen_at` null is a test-mode organisation on real time. */
export interface TestClock {
  readonly frozen_at: string | null
}

/** The organisation's business time: the frozen instant when there is one, else the real time. */
export const nowOf = (clock: TestClock | undefined, realMs: number): number =>
  clock === undefined || clock.frozen_at === null ? realMs : Date.parse(clock.frozen_at)

export interface Duration {
  readonly years: number
  readonly months: number
  readonly weeks: number
  readonly days: number
  readonly hours: number
  readonly minutes: number
  /** May carry up to three decimal places (milliseconds). */
  readonly seconds: number
}

export const ZERO: Duration = { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0 }

// P[nY][nM][nW][nD][T[nH][nM][n[.fff]S]], every number a non-negative integer but the seconds.
const DURATION =
  /^P(?:(\d{1,6})Y)?(?:(\d{1,6})M)?(?:(\d{1,6})W)?(?:(\d{1,6})D)?(?:T(?:(\d{1,8})H)?(?:(\d{1,9})M)?(?:(\d{1,10}(?:[.,]\d{1,3})?)S)?)?$/

/** The largest move one request may make: a hundred years, so that every sum stays a valid date. */
export const MAX_ADVANCE_MS = 100 * 366 * 86_400_000

/**
 * An ISO 8601 duration (`P3D`, `PT2H`, `P1M`, `P1Y2M3DT4H5M6.5S`, `P2W`). Negative and empty
 * durations (`P`, `PT`, `-P1D`) are refused: a test clock only moves forward.
 */
export const parseDuration = (text: string): Either.Either<Duration, string> => {
  const parts = DURATION.exec(text)
  if (parts === null || text === "P" || text.endsWith("T")) {
    return Either.left(`not an ISO 8601 duration such as P3D, PT2H or P1M: ${JSON.stringify(text)}`)
  }
  const whole = (index: number) => (parts[index] === undefined ? 0 : Number(parts[index]))
  const duration: Duration = {
    years: whole(1),
    months: whole(2),
    weeks: whole(3),
    days: whole(4),
    hours: whole(5),
    minutes: whole(6),
    seconds: parts[7] === undefined ? 0 : Number(parts[7].replace(",", "."))
  }
  return Either.right(duration)
}

/** The duration written out again (zero components left out; `PT0S` for none). */
export const formatDuration = (duration: Duration): string => {
  const date = [
    [duration.years, "Y"],
    [duration.months, "M"],
    [duration.weeks, "W"],
    [duration.days, "D"]
  ] as const
  const time = [
    [duration.hours, "H"],
    [duration.minutes, "M"],
    [duration.seconds, "S"]
  ] as const
  const part = (items: ReadonlyArray<readonly [number, string]>) =>
    items.filter(([n]) => n !== 0).map(([n, unit]) => `${n}${unit}`)
  const dateText = part(date).join("")
  const timeText = part(time).join("")
  if (dateText === "" && timeText === "") return "PT0S"
  return `P${dateText}${timeText === "" ? "" : `T${timeText}`}`
}

const DAY_MS = 86_400_000

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month + 1, 0)).getUTCDate()

/**
 * `fromMs` plus `duration`. Years and months are calendar months in UTC (31 January plus one month
 * is the last day of February, the time of day kept); weeks are 7 days, days 24 hours, then the
 * hours, minutes and seconds. A day is 24 hours, not a calendar day in the organisation's zone: on
 * a daylight-saving change the local time of day moves by an hour.
 */
export const addDuration = (fromMs: number, duration: Duration): number => {
  let at = fromMs
  const months = duration.years * 12 + duration.months
  if (months > 0) {
    const date = new Date(at)
    const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + months
    const year = Math.floor(total / 12)
    const month = total % 12
    const day = Math.min(date.getUTCDate(), daysInMonth(year, month))
    at = Date.UTC(
      year,
      month,
      day,
      date.getUTCHours(),
      date.getUTCMinutes(),
      date.getUTCSeconds(),
      date.getUTCMilliseconds()
    )
  }
  return (
    at +
    (duration.weeks * 7 + duration.days) * DAY_MS +
    duration.hours * 3_600_000 +
    duration.minutes * 60_000 +
    Math.round(duration.seconds * 1000)
  )
}

/** What a client asks of the clock: exactly one of the two. */
export type ClockChange = { readonly frozen_at: string } | { readonly advance_by: string }

export type ClockRefusal =
  | { readonly field: "frozen_at"; readonly message: string }
  | { readonly field: "advance_by"; readonly message: string }

/**
 * The instant the clock is frozen at after `change`, from the clock as it is and the real time.
 * - `frozen_at`: a clock on real time may be frozen at any instant, past or future; a frozen
 *   clock only moves forward (an earlier instant is refused, the same one is a no-op).
 * - `advance_by`: from the business time (the frozen instant, or the real time for a clock on
 *   real time, which then freezes there), by at most `MAX_ADVANCE_MS`.
 */
export const next = (clock: TestClock, change: ClockChange, realMs: number): Either.Either<number, ClockRefusal> => {
  const current = nowOf(clock, realMs)
  if ("frozen_at" in change) {
    const target = Date.parse(change.frozen_at)
    if (Number.isNaN(target)) return Either.left({ field: "frozen_at", message: "not a timestamp" })
    if (clock.frozen_at !== null && target < current) {
      return Either.left({
        field: "frozen_at",
        message: `a frozen clock only moves forward: it stands at ${new Date(current).toISOString()}`
      })
    }
    return Either.right(target)
  }
  return Either.flatMap(
    Either.mapLeft(parseDuration(change.advance_by), (message) => ({ field: "advance_by" as const, message })),
    (duration) => {
      const target = addDuration(current, duration)
      if (target - current > MAX_ADVANCE_MS || !Number.isFinite(target) || target > Date.UTC(9999, 11, 31)) {
        return Either.left({ field: "advance_by" as const, message: "at most 100 years at a time" })
      }
      return Either.right(target)
    }
  )
}
