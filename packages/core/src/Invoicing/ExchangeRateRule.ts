/** Which published rate an invoice uses (decisions page): the last one on or before the date, at most 7 days older. */
import * as BigDecimal from "effect/BigDecimal"
import * as Option from "effect/Option"
import type { PublishedRate } from "./ExchangeRateFormats.js"

export const MAX_AGE_DAYS = 7
const DAY_MS = 86_400_000
// Rates are published with 3 to 5 decimals; an inverted one keeps 6 significant places after the point.
const INVERTED_SCALE = 6

const ageInDays = (published: string, date: string) => (Date.parse(date) - Date.parse(published)) / DAY_MS

export const usable = (rate: PublishedRate, date: string): boolean => {
  const age = ageInDays(rate.date, date)
  return age >= 0 && age <= MAX_AGE_DAYS
}

/**
 * Units of `to` per 1 unit of `from` on `date`, from a direct rate or else the inverse of a
 * reverse one (CNB publishes foreign → CZK, the ECB EUR → foreign).
 */
export const choose = (
  direct: Option.Option<PublishedRate>,
  reverse: Option.Option<PublishedRate>,
  date: string
): Option.Option<number> => {
  const fresh = (rate: Option.Option<PublishedRate>) => Option.filter(rate, (r) => usable(r, date))
  return Option.orElse(
    Option.map(fresh(direct), (r) => Number(r.rate)),
    () =>
      Option.flatMap(fresh(reverse), (r) =>
        Option.map(
          BigDecimal.divide(BigDecimal.unsafeFromString("1"), BigDecimal.unsafeFromString(r.rate)),
          (inverted) =>
            Number(BigDecimal.format(BigDecimal.round(inverted, { scale: INVERTED_SCALE, mode: "half-even" })))
        )
      )
  )
}
