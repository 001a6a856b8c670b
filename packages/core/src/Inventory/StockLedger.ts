/**
 * The stock ledger as pure rules. A level is a whole number, or null while the stock is not
 * tracked. Every accepted movement becomes one ledger entry carrying its signed quantity and the
 * level after it, and the ledger keeps one invariant at all times: Σ quantity = level (null
 * counting as 0). Stopping tracking (`count: null`) is therefore an entry of kind `count` whose
 * quantity takes the level back to 0 and whose level is null; a later `count: n` starts again from
 * 0 with quantity n. So the level is also Σ quantity since tracking last (re)started.
 */
import * as Either from "effect/Either"
import { z } from "zod"
import { InsufficientStock, invalidField, StockNotTracked, type ValidationFailed } from "../Errors.js"
import type { ProductId, VariantId } from "./ProductIds.js"

export type Level = number | null

/** What a stock movement was: the first three come from `delta`, `count` from a stocktake, the last two from orders. */
export const MovementKind = z.enum(["restock", "return", "adjust", "count", "sale", "cancel", "receipt"])
export type MovementKind = z.infer<typeof MovementKind>

export const StockBand = z.enum(["untracked", "out", "low", "ok"])
export type StockBand = z.infer<typeof StockBand>

/** Which stock a movement touches: a product without variants, or one variant of a product. */
export interface Item {
  readonly product_id: ProductId
  readonly variant_id: VariantId | null
}

export type Move =
  | { readonly kind: Exclude<MovementKind, "count">; readonly delta: number }
  | { readonly kind: "count"; readonly count: number | null }

export interface Entry {
  readonly kind: MovementKind
  readonly quantity: number
  readonly level: Level
}

/** The key a level is stored under: the variant's id, or the product's own for a product without variants. */
export const itemKey = (item: Item): string => item.variant_id ?? item.product_id

/**
 * The highest level one item may hold, the same bound as a stocktake `count`. Beyond it a level
 * would no longer fit the stores' integer columns (a stream of restocks could otherwise get there).
 */
export const MAX_LEVEL = 1_000_000_000

export const apply = (
  item: Item,
  level: Level,
  move: Move
): Either.Either<Entry, InsufficientStock | StockNotTracked | ValidationFailed> => {
  if (move.kind === "count") {
    return Either.right({ kind: "count", quantity: (move.count ?? 0) - (level ?? 0), level: move.count })
  }
  if (level === null) {
    return Either.left(new StockNotTracked({ detail: { ...item, message: "stock of this item is not tracked" } }))
  }
  const next = level + move.delta
  if (next < 0) {
    return Either.left(
      new InsufficientStock({
        detail: { ...item, level, quantity: move.delta, message: `only ${level} in stock` }
      })
    )
  }
  if (next > MAX_LEVEL) {
    return Either.left(
      invalidField("delta", `the level would be ${next}, above the most one item holds (${MAX_LEVEL})`, "too_big")
    )
  }
  return Either.right({ kind: move.kind, quantity: move.delta, level: next })
}

/** What the ledger says the level is: Σ quantity, which `apply` keeps equal to the stored level. */
export const sum = (entries: ReadonlyArray<{ readonly quantity: number }>): number =>
  entries.reduce((total, entry) => total + entry.quantity, 0)

/** A product's stock over its variants: the sum of the tracked ones, null when none is tracked. */
export const aggregate = (levels: ReadonlyArray<Level>): Level =>
  levels.reduce<Level>((total, level) => (level === null ? total : (total ?? 0) + level), null)

/** out is 0; low is above 0 and at or below the threshold; ok is above it. */
export const band = (stock: Level, threshold: number): StockBand =>
  stock === null ? "untracked" : stock === 0 ? "out" : stock <= threshold ? "low" : "ok"
