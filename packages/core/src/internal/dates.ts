/** Calendar dates (`YYYY-MM-DD`) as the organisation sees them: "today" depends on its time zone. */
const DAY_MS = 86_400_000

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

export const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10)

export const yearOf = (date: string): number => Number(date.slice(0, 4))
