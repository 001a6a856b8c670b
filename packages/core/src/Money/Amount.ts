/**
 * Money amounts as exact decimals. The wire carries JSON numbers in major units; everything in between is
 * `BigDecimal`, so no binary floating point ever touches an amount.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Option from "effect/Option"
import { minorUnits } from "./Currency.js"

/**
 * The exact decimal a JSON number was written as. `String(n)` is the shortest text that reads back as the
 * same double, which is the text a client wrote for any number of up to 15 significant digits: `0.1` is 0.1,
 * not 0.1000000000000000055511151231257827. `BigDecimal.fromString` understands the exponent forms
 * (`1e-7`, `1e+21`) that `String` produces for very small and very large numbers.
 */
export const decimal = (n: number): BigDecimal.BigDecimal => {
  // JSON cannot carry NaN or Infinity, so one here is a programming error, not bad input.
  if (!Number.isFinite(n)) throw new RangeError(`an amount must be a finite number, got ${n}`)
  return Option.getOrThrow(BigDecimal.fromString(String(n)))
}

/**
 * Back to a JSON number. Reading the normalised decimal text gives the double nearest to the decimal, whose
 * shortest text is that decimal again (for up to 15 significant digits), so `0.3` serialises as `0.3`.
 */
export const toJson = (d: BigDecimal.BigDecimal): number => Number(BigDecimal.format(d))

/** Rounds to the currency's minor unit (ISO 4217 exponent), half away from zero, as invoices are rounded. */
export const roundMinor = (d: BigDecimal.BigDecimal, currency: string): BigDecimal.BigDecimal =>
  BigDecimal.round(d, { scale: minorUnits(currency), mode: "half-from-zero" })
