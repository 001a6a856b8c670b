/**
 * Parsers for the exchange rates central banks publish as text: the Czech National Bank's fixing (`denní kurz`,
 * its English twin and the yearly file) and the ECB's euro reference rates (daily and historical CSV). Text in,
 * rates out: fetching belongs to an adapter, and a malformed download must become a message, never a throw.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { fromDecimal } from "../Money/Amount.js"

export interface PublishedRate {
  /** YYYY-MM-DD, the day the rate was published for. */
  readonly date: string
  readonly from: string
  readonly to: string
  /** Exact, normalised decimal text: 1 `from` = `rate` `to`. */
  readonly rate: string
}

interface Line {
  readonly number: number
  readonly text: string
}

/** Non-blank lines, numbered as a person opening the file would see them; BOM and CR tolerated. */
const linesOf = (text: string): ReadonlyArray<Line> =>
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n|\r/)
    .map((raw, i) => ({ number: i + 1, text: raw.trim() }))
    .filter((line) => line.text !== "")

class ParseError {
  constructor(readonly message: string) {}
}

// A declaration, not an arrow, so that TypeScript narrows after `if (...) fail(...)`.
function fail(source: string, line: Line, why: string): never {
  throw new ParseError(`${source}, line ${line.number}: ${why} (got "${clip(line.text)}")`)
}

const clip = (text: string): string => (text.length > 80 ? `${text.slice(0, 77)}...` : text)

// Exceptions stay inside this module: they only shorten the way out of nested loops to a Left.
const run = (
  source: string,
  parse: () => ReadonlyArray<PublishedRate>
): Either.Either<ReadonlyArray<PublishedRate>, string> => {
  try {
    const rates = parse()
    return rates.length === 0 ? Either.left(`${source}: no rates found`) : Either.right(rates)
  } catch (e) {
    if (e instanceof ParseError) return Either.left(e.message)
    throw e
  }
}

// ---- dates -----------------------------------------------------------------------------------------------------

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
const MONTH_NAMES = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december"
]

const isoDate = (year: number, month: number, day: number): Option.Option<string> => {
  const probe = new Date(Date.UTC(year, month - 1, day))
  // Date.UTC rolls 31.11. over to 1.12.; a date that does not come back unchanged does not exist.
  if (year < 1900 || probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day)
    return Option.none()
  return Option.some(
    `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`
  )
}

const monthNumber = (name: string): number => {
  const lower = name.toLowerCase()
  const short = MONTHS.indexOf(lower)
  return (short === -1 ? MONTH_NAMES.indexOf(lower) : short) + 1
}

/** `23.11.2026` (Czech), `23 Nov 2026` / `23.Nov.2026` (CNB in English), `22 November 2026` (ECB daily), `2026-11-22`. */
const parseDate = (text: string): Option.Option<string> => {
  const dotted = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text)
  if (dotted) return isoDate(Number(dotted[3]), Number(dotted[2]), Number(dotted[1]))
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (iso) return isoDate(Number(iso[1]), Number(iso[2]), Number(iso[3]))
  const named = /^(\d{1,2})[ .]([A-Za-z]+)[ .](\d{4})$/.exec(text)
  if (named) {
    const month = monthNumber(named[2]!)
    return month === 0 ? Option.none() : isoDate(Number(named[3]), month, Number(named[1]))
  }
  return Option.none()
}

// ---- decimals --------------------------------------------------------------------------------------------------

/** A published rate: digits with an optional decimal comma or point. Signs, exponents and zero are refused. */
const parseRate = (text: string): Option.Option<BigDecimal.BigDecimal> => {
  // BigDecimal.fromString alone is too lenient here: it reads "" as 0 and accepts "1.", ".5", "+1" and "1e3".
  if (!/^\d+([.,]\d+)?$/.test(text)) return Option.none()
  return Option.filter(BigDecimal.fromString(text.replace(",", ".")), BigDecimal.isPositive)
}

/**
 * `rate / amount`, exactly. CNB quotes some currencies per 100 or 1000 units; any amount of the form 2^a·5^b
 * divides a decimal exactly, and anything else (per 3 units) could not be written as a finite decimal.
 * `BigDecimal.divide` is not used because it truncates at a fixed precision instead of saying so.
 */
const divideExactly = (rate: BigDecimal.BigDecimal, amount: bigint): Option.Option<BigDecimal.BigDecimal> => {
  let rest = amount
  let twos = 0
  let fives = 0
  while (rest % 2n === 0n) {
    rest /= 2n
    twos++
  }
  while (rest % 5n === 0n) {
    rest /= 5n
    fives++
  }
  if (rest !== 1n) return Option.none()
  const shift = Math.max(twos, fives)
  const multiplier = 10n ** BigInt(shift) / amount
  return Option.some(BigDecimal.make(rate.value * multiplier, rate.scale + shift))
}

const CURRENCY = /^[A-Z]{3}$/

// ---- Czech National Bank ---------------------------------------------------------------------------------------

const CNB = "CNB rates"
const CNB_HEADERS = ["země|měna|množství|kód|kurz", "country|currency|amount|code|rate"]
const CNB_BLOCK_START = /^(.+?)\s*#\s*\d+$/
const CNB_YEARLY_HEADER = /^(datum|date)\|/i

interface YearlyColumn {
  readonly amount: bigint
  readonly code: string
}

const cnbRate = (line: Line, date: string, code: string, amountText: string, rateText: string): PublishedRate => {
  if (!CURRENCY.test(code)) fail(CNB, line, `"${code}" is not a currency code`)
  if (!/^[1-9]\d*$/.test(amountText)) fail(CNB, line, `amount "${amountText}" is not a positive whole number`)
  const rate = Option.getOrElse(parseRate(rateText), () => fail(CNB, line, `rate "${rateText}" is not a decimal`))
  const perUnit = Option.getOrElse(divideExactly(rate, BigInt(amountText)), () =>
    fail(CNB, line, `a rate per ${amountText} units is not a finite decimal per unit`)
  )
  return { date, from: code, to: "CZK", rate: fromDecimal(perUnit) }
}

const yearlyColumns = (line: Line): ReadonlyArray<YearlyColumn> =>
  line.text
    .split("|")
    .slice(1)
    .map((cell) => {
      const m = /^(\d+)\s+([A-Z]{3})$/.exec(cell.trim())
      if (!m || !/^[1-9]/.test(m[1]!)) return fail(CNB, line, `column "${cell}" is not "<amount> <code>"`)
      return { amount: BigInt(m[1]!), code: m[2]! }
    })

/**
 * The CNB fixing as text. Daily (`denní kurz` or `daily.txt`): a `DD.MM.YYYY #n` line, the header
 * `země|měna|množství|kód|kurz`, then one `country|currency|amount|code|rate` row per currency, `rate` CZK for
 * `amount` units. Blocks may be concatenated. The yearly file (`rok.txt`/`year.txt`): a `Datum|1 AUD|100 JPY|...`
 * header, repeated whenever the list of currencies changes, then one `DD.MM.YYYY|rate|rate|...` row per day.
 */
export const parseCnb = (text: string): Either.Either<ReadonlyArray<PublishedRate>, string> =>
  run(CNB, () => {
    const lines = linesOf(text)
    if (lines.length === 0) throw new ParseError(`${CNB}: the text is empty`)
    const rates: Array<PublishedRate> = []
    let mode:
      | { readonly kind: "none" }
      | { readonly kind: "daily"; readonly date: string }
      | {
          readonly kind: "yearly"
          readonly columns: ReadonlyArray<YearlyColumn>
        } = { kind: "none" }

    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!
      const start = CNB_BLOCK_START.exec(line.text)
      if (start && !line.text.includes("|")) {
        const date = Option.getOrElse(parseDate(start[1]!), () => fail(CNB, line, "not a fixing date"))
        const header = lines[i + 1]
        if (!header || !CNB_HEADERS.includes(header.text.toLowerCase().replace(/\s*\|\s*/g, "|")))
          fail(CNB, header ?? line, `expected the header "${CNB_HEADERS[0]}" after the date line`)
        mode = { kind: "daily", date }
        i++
        continue
      }
      if (CNB_YEARLY_HEADER.test(line.text)) {
        mode = { kind: "yearly", columns: yearlyColumns(line) }
        continue
      }
      const cells = line.text.split("|").map((cell) => cell.trim())
      switch (mode.kind) {
        case "none":
          fail(CNB, line, 'expected a "DD.MM.YYYY #n" line or a "Datum|..." header')
          break
        case "daily": {
          if (cells.length !== 5) fail(CNB, line, 'expected "country|currency|amount|code|rate"')
          rates.push(cnbRate(line, mode.date, cells[3]!, cells[2]!, cells[4]!))
          break
        }
        case "yearly": {
          const date = Option.getOrElse(parseDate(cells[0]!), () => fail(CNB, line, "expected a DD.MM.YYYY date"))
          if (cells.length - 1 > mode.columns.length) fail(CNB, line, "more values than the header has currencies")
          mode.columns.forEach((column, c) => {
            const value = cells[c + 1] ?? ""
            if (value !== "") rates.push(cnbRate(line, date, column.code, column.amount.toString(), value))
          })
          break
        }
      }
    }
    return rates
  })

// ---- European Central Bank -------------------------------------------------------------------------------------

const ECB = "ECB rates"

/**
 * ECB euro foreign exchange reference rates as CSV: `eurofxref.csv` (`Date, USD, JPY, ...` then
 * `22 November 2026, 1.0543, 162.50, ...`) or `eurofxref-hist.csv` (`Date,USD,...` then `2026-11-22,1.0543,...`).
 * Both end lines with a comma. `N/A` or an empty cell means no rate for that currency on that day.
 */
export const parseEcb = (text: string): Either.Either<ReadonlyArray<PublishedRate>, string> =>
  run(ECB, () => {
    const lines = linesOf(text)
    const head = lines[0]
    if (!head) throw new ParseError(`${ECB}: the text is empty`)
    const headCells = head.text.split(",").map((cell) => cell.trim())
    while (headCells.length > 1 && headCells[headCells.length - 1] === "") headCells.pop()
    if (headCells[0]?.toLowerCase() !== "date" || headCells.length < 2)
      fail(ECB, head, 'expected a header "Date, USD, JPY, ..."')
    const codes = headCells.slice(1)
    codes.forEach((code) => {
      if (!CURRENCY.test(code)) fail(ECB, head, `"${code}" is not a currency code`)
    })

    const rates: Array<PublishedRate> = []
    for (const line of lines.slice(1)) {
      const cells = line.text.split(",").map((cell) => cell.trim())
      const date = Option.getOrElse(parseDate(cells[0]!), () => fail(ECB, line, "expected a date"))
      if (cells.slice(codes.length + 1).some((cell) => cell !== ""))
        fail(ECB, line, "more values than the header has currencies")
      for (const [c, code] of codes.entries()) {
        const value = cells[c + 1] ?? ""
        if (value === "" || value.toUpperCase() === "N/A") continue
        // The ECB writes a decimal point; a comma here would be a column separator, so the stricter check.
        const rate = /^\d+(\.\d+)?$/.test(value) ? parseRate(value) : Option.none()
        if (Option.isNone(rate)) fail(ECB, line, `${code} value "${value}" is not a decimal`)
        rates.push({ date, from: "EUR", to: code, rate: fromDecimal(rate.value) })
      }
    }
    return rates
  })
