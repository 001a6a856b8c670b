import { Invoicing } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { orStorageError } from "./internal/errors.js"
import { type ExchangeRateRow, exchangeRateTable, toPublishedRate } from "./internal/rows.js"
import { textArray } from "./internal/values.js"

/**
 * The last rate given for each day and pair. One INSERT cannot touch a row twice (`ON CONFLICT`
 * refuses), and the port says a later rate replaces an earlier one, so the batch is folded first.
 */
const lastPerDay = (rates: ReadonlyArray<Invoicing.PublishedRate>): ReadonlyArray<Invoicing.PublishedRate> => [
  ...new Map(rates.map((rate) => [JSON.stringify([rate.date, rate.from, rate.to]), rate])).values()
]

export const make: Effect.Effect<
  Context.Tag.Service<typeof Invoicing.ExchangeRates>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return Invoicing.ExchangeRates.of({
    // The rates travel as four arrays, so a yearly file of thousands of rows is still one
    // statement with four parameters: atomic, and far from the protocol's parameter limit.
    // `rate` is numeric, which keeps the scale it is given: normalised text comes back unchanged.
    store: (rates) => {
      const unique = lastPerDay(rates)
      if (unique.length === 0) return Effect.succeed(0)
      return sql`INSERT INTO exchange_rates (date, from_currency, to_currency, rate)
        SELECT * FROM unnest(${textArray(unique.map((rate) => rate.date))}::date[],
          ${textArray(unique.map((rate) => rate.from))}::text[], ${textArray(unique.map((rate) => rate.to))}::text[],
          ${textArray(unique.map((rate) => rate.rate))}::numeric[])
        ON CONFLICT (from_currency, to_currency, date) DO UPDATE SET rate = excluded.rate`.pipe(
        Effect.as(unique.length),
        orStorageError("ExchangeRates.store")
      )
    },
    latest: (from, to, date) =>
      sql<ExchangeRateRow>`SELECT ${sql.literal(exchangeRateTable.selected)}
        FROM exchange_rates WHERE from_currency = ${from} AND to_currency = ${to} AND date <= ${date}::date
        ORDER BY date DESC LIMIT 1`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toPublishedRate)),
        orStorageError("ExchangeRates.latest")
      )
  })
})

export const layer = Layer.effect(Invoicing.ExchangeRates, make)
