/** ISO 4217 currencies and their minor units: how many decimals an amount may carry. */
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { ValidationFailed, type ValidationIssue } from "../Errors.js"
import { type Amount, decimalsOf } from "./Amount.js"

// Exponents other than 2 (ISO 4217 list); every other code has cents.
const ZERO_DECIMALS = new Set([
  "BIF",
  "CLP",
  "DJF",
  "GNF",
  "ISK",
  "JPY",
  "KMF",
  "KRW",
  "PYG",
  "RWF",
  "UGX",
  "UYI",
  "VND",
  "VUV",
  "XAF",
  "XOF",
  "XPF"
])
const THREE_DECIMALS = new Set(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"])
const FOUR_DECIMALS = new Set(["CLF", "UYW"])

export const Currency = z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as EUR")

export const minorUnits = (currency: string): number =>
  ZERO_DECIMALS.has(currency) ? 0 : THREE_DECIMALS.has(currency) ? 3 : FOUR_DECIMALS.has(currency) ? 4 : 2

/** Rounds to the currency's minor unit (ISO 4217 exponent), half away from zero, as invoices are rounded. */
export const roundMinor = (d: BigDecimal.BigDecimal, currency: string): BigDecimal.BigDecimal =>
  BigDecimal.round(d, { scale: minorUnits(currency), mode: "half-from-zero" })

export const fitsMinorUnit = (amount: Amount, currency: string): boolean => decimalsOf(amount) <= minorUnits(currency)

/** The `validation_failed` issue for an amount finer than its currency's minor unit (none when it fits). */
export const precisionIssues = (
  path: string,
  amount: Amount | null,
  currency: string
): ReadonlyArray<ValidationIssue> =>
  amount === null || fitsMinorUnit(amount, currency)
    ? []
    : [{ path, message: `${currency} amounts have at most ${minorUnits(currency)} decimals`, code: "too_precise" }]

/** An amount finer than the currency's minor unit is refused rather than silently rounded. */
export const checkPrecision = (path: string, amount: Amount | null, currency: string) => {
  const issues = precisionIssues(path, amount, currency)
  return issues.length === 0 ? Effect.void : Effect.fail(new ValidationFailed({ detail: issues }))
}
