/**
 * The numbering port (`Invoicing.NumberSequence`): numbers count per organisation, series and year,
 * without a gap or a repeat, even when concurrent units of work fail after allocating.
 */
import { Invoicing, type Organisation, Transaction } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { Boom, type StoragePorts, seed } from "./Fixtures.js"

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`NumberSequence storage contract: ${name}`, () => {
    test(
      "counts 1, 2, 3, ... per organisation, series and year, each independently",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const numbers = yield* Invoicing.NumberSequence
        const next = (organisationId: Organisation.OrganisationId, series: string, year: number) =>
          numbers.next(organisationId, series, year)
        expect(yield* next(a.id, "normal", 2026)).toBe(1)
        expect(yield* next(a.id, "normal", 2026)).toBe(2)
        expect(yield* next(a.id, "normal", 2026)).toBe(3)
        expect(yield* next(a.id, "normal", 2027)).toBe(1)
        expect(yield* next(a.id, "quote", 2026)).toBe(1)
        expect(yield* next(b.id, "normal", 2026)).toBe(1)
        expect(yield* next(a.id, "normal", 2026)).toBe(4)
        expect(yield* next(a.id, "normal", 2027)).toBe(2)
        expect(yield* next(b.id, "normal", 2026)).toBe(2)
        expect(yield* next(a.id, "quote", 2026)).toBe(2)
      })
    )

    test(
      "a unit of work that allocates and then fails takes its number back: the next allocation gets it",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const numbers = yield* Invoicing.NumberSequence
        expect(yield* tx.run(numbers.next(a.id, "normal", 2026))).toBe(1)
        const error = yield* Effect.flip(
          tx.run(
            Effect.gen(function* () {
              expect(yield* numbers.next(a.id, "normal", 2026)).toBe(2)
              expect(yield* numbers.next(a.id, "normal", 2026)).toBe(3)
              return yield* new Boom({ step: "after allocating" })
            })
          )
        )
        expect(error).toEqual(new Boom({ step: "after allocating" }))
        expect(yield* tx.run(numbers.next(a.id, "normal", 2026))).toBe(2)
        expect(yield* numbers.next(a.id, "normal", 2026)).toBe(3)
      })
    )

    concurrent(
      "20 concurrent units allocating in one series get exactly 1..20, none twice",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const numbers = yield* Invoicing.NumberSequence
        const given = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) =>
            tx.run(
              Effect.gen(function* () {
                const number = yield* numbers.next(a.id, "normal", 2026)
                // Stay open after allocating, so that the others must wait for the commit.
                yield* Effect.sleep(`${(i * 7) % 5} millis`)
                return number
              })
            ),
          { concurrency: "unbounded" }
        )
        expect([...given].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
        expect(yield* numbers.next(a.id, "normal", 2026)).toBe(21)
      }),
      120_000
    )

    concurrent(
      "concurrent units of which some fail after allocating: the committed ones hold 1..n without a gap",
      Effect.gen(function* () {
        const { a } = yield* seed
        const tx = yield* Transaction.Transaction
        const numbers = yield* Invoicing.NumberSequence
        const results = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) =>
            Effect.either(
              tx.run(
                Effect.gen(function* () {
                  const number = yield* numbers.next(a.id, "normal", 2026)
                  yield* Effect.sleep(`${(i * 3) % 4} millis`)
                  if (i % 4 === 1) return yield* new Boom({ step: `unit ${i}` })
                  return number
                })
              )
            ),
          { concurrency: "unbounded" }
        )
        const committed = results.filter(Either.isRight).map((result) => result.right)
        expect(committed).toHaveLength(15)
        expect([...committed].sort((x, y) => x - y)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1))
        expect(yield* numbers.next(a.id, "normal", 2026)).toBe(16)
      }),
      120_000
    )
  })
}
