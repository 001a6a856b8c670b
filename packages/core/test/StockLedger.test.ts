import { Ids, Inventory } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { StockLedger } = Inventory

const ITEM = { product_id: Ids.brand(Inventory.ProductId, crypto.randomUUID()), variant_id: null }

const move: fc.Arbitrary<Inventory.StockLedger.Move> = fc.oneof(
  fc.record({
    kind: fc.constantFrom("restock" as const, "return" as const, "adjust" as const, "sale" as const, "cancel" as const),
    delta: fc.integer({ min: -50, max: 50 }).filter((n) => n !== 0)
  }),
  fc.record({ kind: fc.constant("count" as const), count: fc.option(fc.nat(100), { nil: null }) })
)

/** Applies every move in turn, keeping the accepted entries: what the service does, minus storage. */
const run = (moves: ReadonlyArray<Inventory.StockLedger.Move>) => {
  let level: Inventory.StockLedger.Level = null
  const entries: Array<Inventory.StockLedger.Entry> = []
  const refused: Array<string> = []
  for (const m of moves) {
    const result = StockLedger.apply(ITEM, level, m)
    if (Either.isLeft(result)) {
      refused.push(result.left.code)
      continue
    }
    entries.push(result.right)
    level = result.right.level
  }
  return { level, entries, refused }
}

describe("StockLedger", () => {
  it("keeps level = Σ ledger (untracked counting as 0) and never below zero, after every move", () => {
    fc.assert(
      fc.property(fc.array(move, { maxLength: 60 }), (moves) => {
        for (let n = 0; n <= moves.length; n++) {
          const { level, entries } = run(moves.slice(0, n))
          expect(StockLedger.sum(entries)).toBe(level ?? 0)
          for (const entry of entries) if (entry.level !== null) expect(entry.level).toBeGreaterThanOrEqual(0)
        }
      })
    )
  })

  it("level is also Σ ledger since tracking last (re)started", () => {
    fc.assert(
      fc.property(fc.array(move, { maxLength: 60 }), (moves) => {
        const { level, entries } = run(moves)
        const stops = entries.flatMap((entry, i) => (entry.level === null ? [i] : []))
        const since = entries.slice((stops.at(-1) ?? -1) + 1)
        expect(level === null ? since.length : StockLedger.sum(since)).toBe(level ?? 0)
      })
    )
  })

  it("behaves like a plain model: a count sets the level, a delta adds to it when tracked and enough is there", () => {
    fc.assert(
      fc.property(fc.array(move, { maxLength: 60 }), (moves) => {
        let model: number | null = null
        const expectedRefusals: Array<string> = []
        for (const m of moves) {
          if (m.kind === "count") model = m.count
          else if (model === null) expectedRefusals.push("stock_not_tracked")
          else if (model + m.delta < 0) expectedRefusals.push("insufficient_stock")
          else model += m.delta
        }
        const { level, refused } = run(moves)
        expect(level).toBe(model)
        expect(refused).toEqual(expectedRefusals)
      })
    )
  })

  it("records a stocktake as the difference from the level, then a delta from the counted level", () => {
    fc.assert(
      fc.property(
        fc.option(fc.nat(100), { nil: null }),
        fc.nat(100),
        fc.integer({ min: -120, max: 120 }).filter((n) => n !== 0),
        (before, counted, delta) => {
          const count = StockLedger.apply(ITEM, before, { kind: "count", count: counted })
          expect(count).toEqual(Either.right({ kind: "count", quantity: counted - (before ?? 0), level: counted }))
          const after = StockLedger.apply(ITEM, counted, { kind: "adjust", delta })
          if (counted + delta < 0) {
            expect(Either.isLeft(after) && after.left.code).toBe("insufficient_stock")
          } else {
            expect(after).toEqual(Either.right({ kind: "adjust", quantity: delta, level: counted + delta }))
          }
        }
      )
    )
  })

  it("stops tracking with an entry that takes the level back to 0 and records null", () => {
    expect(StockLedger.apply(ITEM, 7, { kind: "count", count: null })).toEqual(
      Either.right({ kind: "count", quantity: -7, level: null })
    )
    const refused = StockLedger.apply(ITEM, null, { kind: "sale", delta: -1 })
    expect(Either.isLeft(refused) && refused.left.code).toBe("stock_not_tracked")
  })

  it("names the item and the level in an insufficient_stock refusal", () => {
    const refused = StockLedger.apply(
      { product_id: Ids.brand(Inventory.ProductId, "p"), variant_id: Ids.brand(Inventory.VariantId, "v") },
      2,
      { kind: "sale", delta: -3 }
    )
    expect(Either.isLeft(refused) && refused.left.detail).toMatchObject({
      product_id: "p",
      variant_id: "v",
      level: 2,
      quantity: -3
    })
  })

  it("sums a product's variants over the tracked ones and bands stock against the threshold", () => {
    expect(StockLedger.aggregate([])).toBeNull()
    expect(StockLedger.aggregate([null, null])).toBeNull()
    expect(StockLedger.aggregate([null, 0])).toBe(0)
    expect(StockLedger.aggregate([3, null, 4])).toBe(7)
    expect([null, 0, 1, 5, 6].map((stock) => StockLedger.band(stock, 5))).toEqual([
      "untracked",
      "out",
      "low",
      "low",
      "ok"
    ])
    expect(StockLedger.band(1, 0)).toBe("ok")
  })
})
