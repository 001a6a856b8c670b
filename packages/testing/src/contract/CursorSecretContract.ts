/**
 * The cursor secret port (`Cursors.CursorSecret`): the first secret offered is kept, and every read
 * after it, concurrent first reads included, answers that one, so that every cursor the store's
 * processes give out verifies on all of them.
 */
import { Cursors } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import type { StoragePorts } from "./Fixtures.js"

const offer = (text: string) => Redacted.make(text)

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`CursorSecret storage contract: ${name}`, () => {
    test(
      "keeps the first secret offered: every later read answers it, whatever it offers",
      Effect.gen(function* () {
        const secrets = yield* Cursors.CursorSecret
        const first = Redacted.value(yield* secrets.get(offer("a".repeat(64))))
        expect(first).toBe("a".repeat(64))
        for (const other of ["b", "c"]) {
          expect(Redacted.value(yield* secrets.get(offer(other.repeat(64))))).toBe(first)
        }
      })
    )

    test(
      "answers a generated secret unchanged",
      Effect.gen(function* () {
        const secrets = yield* Cursors.CursorSecret
        const generated = yield* Cursors.generateSecret
        expect(Redacted.value(yield* secrets.get(generated))).toBe(Redacted.value(generated))
        expect(Redacted.value(yield* secrets.get(yield* Cursors.generateSecret))).toBe(Redacted.value(generated))
      })
    )

    concurrent(
      "of concurrent first reads, one offer wins and every read answers it",
      Effect.gen(function* () {
        const secrets = yield* Cursors.CursorSecret
        const offers = Array.from({ length: 8 }, (_, n) => n.toString(16).repeat(64))
        const answers = yield* Effect.forEach(offers, (text) => secrets.get(offer(text)), {
          concurrency: "unbounded"
        })
        const kept = new Set(answers.map(Redacted.value))
        expect(kept.size).toBe(1)
        const [winner] = kept
        expect(offers).toContain(winner)
        expect(Redacted.value(yield* secrets.get(offer("f".repeat(64))))).toBe(winner)
      })
    )
  })
}
