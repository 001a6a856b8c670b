/** Calendar dates (`YYYY-MM-DD`) as the organisation sees them: "today" depends on its time zone. */
import * as DateTime from "effect/DateTime"

const DAY_MS = 86_400_000

// en-CA formats as YYYY-MM-DD. A date-only formatter, rather than effect/DateTime's zoned parts
// (formatToParts of date, time and offset), because dating an instant is on the path of every
// date-bound rule: it costs a tenth of the zoned way.
const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterFor = (timeZone: string) => {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

export const dateIn = (timeZone: string, epochMs: number): string => formatterFor(timeZone).format(epochMs)

/**
 * The UTC instant at which `date` (`YYYY-MM-DD`) begins in `timeZone`: the first instant whose
 * local date is `date`, that is its local midnight resolved as Temporal's "compatible" does. A
 * midnight that a daylight-saving change skips resolves to the end of the gap (the day begins at
 * 01:00); one that it repeats, to the first of the two.
 */
export const startOfDay = (timeZone: string, date: string): number =>
  DateTime.toEpochMillis(
    DateTime.unsafeMakeZoned(Date.parse(`${date}T00:00:00.000Z`), {
      // effect/DateTime keeps one zone (and its Intl formatter) per name.
      timeZone: DateTime.zoneUnsafeMakeNamed(timeZone),
      adjustForTimeZone: true,
      disambiguation: "compatible"
    })
  )

export const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10)

export const yearOf = (date: string): number => Number(date.slice(0, 4))

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** A day of the calendar written `YYYY-MM-DD`: `Date.parse` would take 2026-02-31 as 3 March. */
export const isCalendarDate = (value: string): boolean => {
  const parts = DATE.exec(value)
  if (parts === null) return false
  const date = new Date(Date.UTC(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3])))
  return date.toISOString().slice(0, 10) === value
}
