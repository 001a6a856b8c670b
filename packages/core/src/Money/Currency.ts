/** ISO 4217 currencies and their minor units: how many decimals an amount may carry. */
import * as Effect from "effect/Effect"
import { z } from "zod"
import { ValidationFailed, type ValidationIssue } from "../Errors.js"

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

/** Decimals written in a JSON number (`1e-7` included), to refuse amounts finer than the minor unit. */
export const decimalsOf = (amount: number): number => {
  const [mantissa = "", exponent] = Math.abs(amount).toString().split("e")
  const fraction = mantissa.split(".")[1]?.length ?? 0
  return Math.max(0, fraction - Number(exponent ?? 0))
}

export const fitsMinorUnit = (amount: number, currency: string): boolean => decimalsOf(amount) <= minorUnits(currency)

/** The `validation_failed` issue for an amount finer than its currency's minor unit (none when it fits). */
export const precisionIssues = (
  path: string,
  amount: number | null,
  currency: string
): ReadonlyArray<ValidationIssue> =>
  amount === null || fitsMinorUnit(amount, currency)
    ? []
    : [{ path, message: `${currency} amounts have at most ${minorUnits(currency)} decimals`, code: "too_precise" }]

/** An amount finer than the currency's minor unit is refused rather than silently rounded. */
export const checkPrecision = (path: string, amount: number | null, currency: string) => {
  const issues = precisionIssues(path, amount, currency)
  return issues.length === 0 ? Effect.void : Effect.fail(new ValidationFailed({ detail: issues }))
}
