/** Calendar dates (`YYYY-MM-DD`) as the organisation sees them: "today" depends on its time zone. */
const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000

// en-CA formats as YYYY-MM-DD.
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
 * The UTC instant at which `date` (`YYYY-MM-DD`) begins in `timeZone`: the first millisecond whose local
 * date is `date`. A search rather than offset arithmetic, so a day whose midnight a daylight-saving
 * change skips (it then begins at 01:00) or repeats still begins at its first instant.
 */
export const startOfDay = (timeZone: string, date: string): number => {
  // Every zone's offset lies within -12h..+14h, so the day begins inside this window.
  const midnightUtc = Date.parse(`${date}T00:00:00.000Z`)
  let low = (midnightUtc - 15 * HOUR_MS) / 1000
  let high = (midnightUtc + 13 * HOUR_MS) / 1000
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    if (dateIn(timeZone, middle * 1000) < date) low = middle + 1
    else high = middle
  }
  return low * 1000
}

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
