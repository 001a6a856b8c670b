/**
 * The exchange-rate port (`Invoicing.ExchangeRates`): the latest rate on or before a day, per
 * directed pair, stored in batches with exact decimals.
 */
import { Invoicing } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import type { StoragePorts } from "./Fixtures.js"

const rate = (date: string, from: string, to: string, value: string): Invoicing.PublishedRate => ({
  date,
  from,
  to,
  rate: value
})

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test } = contractCases(makeLayer, options)

  describe(`ExchangeRates storage contract: ${name}`, () => {
    test(
      "latest is the newest rate published on or before the date, never a later one; pairs are directed",
      Effect.gen(function* () {
        const rates = yield* Invoicing.ExchangeRates
        expect(Option.isNone(yield* rates.latest("EUR", "CZK", "2026-01-05"))).toBe(true)
        const published = [
          rate("2026-01-05", "EUR", "CZK", "24.4"),
          rate("2026-01-02", "EUR", "CZK", "24.335"),
          rate("2026-01-07", "EUR", "CZK", "24.1"),
          rate("2026-01-06", "USD", "CZK", "20.9"),
          rate("2026-01-06", "EUR", "USD", "1.0543")
        ]
        expect(yield* rates.store(published)).toBe(5)
        const latest = (from: string, to: string, date: string) =>
          Effect.map(rates.latest(from, to, date), Option.getOrNull)
        expect(yield* latest("EUR", "CZK", "2026-01-06")).toEqual(published[0])
        expect(yield* latest("EUR", "CZK", "2026-01-05")).toEqual(published[0])
        expect(yield* latest("EUR", "CZK", "2026-01-04")).toEqual(published[1])
        expect(yield* latest("EUR", "CZK", "2026-01-02")).toEqual(published[1])
        expect(yield* latest("EUR", "CZK", "2026-01-01")).toBeNull()
        expect(yield* latest("EUR", "CZK", "2030-12-31")).toEqual(published[2])
        expect(yield* latest("USD", "CZK", "2026-01-06")).toEqual(published[3])
        expect(yield* latest("EUR", "USD", "2026-02-01")).toEqual(published[4])
        expect(yield* latest("CZK", "EUR", "2026-01-06")).toBeNull()
        expect(yield* latest("USD", "EUR", "2026-01-06")).toBeNull()
        expect(yield* latest("GBP", "CZK", "2026-01-06")).toBeNull()
        expect(yield* rates.store([])).toBe(0)
      })
    )

    test(
      "store replaces the rate of a day and pair (a later one in the same batch wins) and keeps decimals exact",
      Effect.gen(function* () {
        const rates = yield* Invoicing.ExchangeRates
        const latest = (from: string, to: string, date: string) =>
          Effect.map(rates.latest(from, to, date), Option.getOrNull)
        expect(yield* rates.store([rate("2026-01-02", "EUR", "CZK", "24.335")])).toBe(1)
        expect(
          yield* rates.store([
            rate("2026-01-02", "EUR", "CZK", "25"),
            rate("2026-01-02", "EUR", "CZK", "25.125"),
            rate("2026-01-02", "HUF", "CZK", "0.05892"),
            rate("2026-01-02", "IDR", "CZK", "0.0012345678901234567890123"),
            rate("2026-01-02", "CZK", "XAU", "123456789012345678.5"),
            rate("2026-01-02", "EUR", "SEK", "0.15432")
          ])
        ).toBe(5)
        expect(yield* latest("EUR", "CZK", "2026-01-02")).toEqual(rate("2026-01-02", "EUR", "CZK", "25.125"))
        expect((yield* latest("HUF", "CZK", "2026-01-02"))?.rate).toBe("0.05892")
        expect((yield* latest("IDR", "CZK", "2026-01-02"))?.rate).toBe("0.0012345678901234567890123")
        expect((yield* latest("CZK", "XAU", "2026-01-02"))?.rate).toBe("123456789012345678.5")
        expect((yield* latest("EUR", "SEK", "2026-01-03"))?.rate).toBe("0.15432")
        // Replacing one day leaves the other days of the pair alone.
        yield* rates.store([rate("2026-01-03", "EUR", "CZK", "24.335")])
        expect(yield* rates.store([rate("2026-01-03", "EUR", "CZK", "24.3")])).toBe(1)
        expect((yield* latest("EUR", "CZK", "2026-01-02"))?.rate).toBe("25.125")
        expect(yield* latest("EUR", "CZK", "2026-01-03")).toEqual(rate("2026-01-03", "EUR", "CZK", "24.3"))
      })
    )

    test(
      "thousands of rates store in one call",
      Effect.gen(function* () {
        const rates = yield* Invoicing.ExchangeRates
        const days = Array.from({ length: 400 }, (_, i) =>
          new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10)
        )
        const codes = ["USD", "GBP", "JPY", "HUF", "PLN", "SEK", "CHF", "NOK", "DKK", "CZK"]
        const published = days.flatMap((day, d) =>
          codes.map((code, c) => rate(day, "EUR", code, `${c + 1}.${String(d).padStart(4, "0")}1`))
        )
        expect(yield* rates.store(published)).toBe(4000)
        expect(Option.getOrThrow(yield* rates.latest("EUR", "PLN", days[123]!))).toEqual(published[123 * 10 + 4])
        expect(Option.getOrThrow(yield* rates.latest("EUR", "CZK", "2099-01-01"))).toEqual(published.at(-1))
      }),
      120_000
    )
  })
}
