/** Sums kept apart per currency, in exact decimals: two currencies are never added together. */
import * as BigDecimal from "effect/BigDecimal"
import { type Amount, fromDecimal, toDecimal } from "../Money/Amount.js"
import { roundMinor } from "../Money/Currency.js"
import type { CurrencyTotal } from "./AnalyticsSchemas.js"

export type Totals = ReadonlyMap<string, BigDecimal.BigDecimal>

export const ZERO = BigDecimal.unsafeFromNumber(0)

/** Adds `amount` to its currency's total (a new map; the input is left alone). */
export const add = (totals: Totals, currency: string, amount: BigDecimal.BigDecimal): Totals => {
  const next = new Map(totals)
  next.set(currency, BigDecimal.sum(totals.get(currency) ?? ZERO, amount))
  return next
}

/** Sums `amount` of each item per currency; items without an amount are skipped. */
export const sumBy = <A>(
  items: Iterable<A>,
  currencyOf: (item: A) => string,
  amountOf: (item: A) => Amount | null
): Totals => {
  const totals = new Map<string, BigDecimal.BigDecimal>()
  for (const item of items) {
    const amount = amountOf(item)
    if (amount === null) continue
    const currency = currencyOf(item)
    totals.set(currency, BigDecimal.sum(totals.get(currency) ?? ZERO, toDecimal(amount)))
  }
  return totals
}

/** The wire form: one entry per currency, by currency code, rounded to each currency's minor unit. */
export const toWire = (totals: Totals): Array<CurrencyTotal> =>
  [...totals.keys()].sort().map((currency) => ({ currency, total: money(totals.get(currency) ?? ZERO, currency) }))

/** An amount as reported: rounded to the currency's minor unit, half away from zero. */
export const money = (amount: BigDecimal.BigDecimal, currency: string): Amount =>
  fromDecimal(roundMinor(amount, currency))
