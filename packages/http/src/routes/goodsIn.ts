import * as Effect from "effect/Effect"

/**
 * A document that only brings goods in (a purchase-order receipt, a received return) adds to
 * tracked stock and leaves untracked stock alone, and a return skips the variants removed since:
 * the ledger's refusals of taking stock out cannot reach it. The core names them because one ledger
 * call serves sales too; should one arrive all the same, it is a defect (500), not an answer the
 * route documents.
 */
export const receiptRefusalsAreDefects = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchTags(effect, { InsufficientStock: Effect.die, StockNotTracked: Effect.die })

/** A received return also skips the items whose variant is gone, so it cannot be `variant_required` either. */
export const returnRefusalsAreDefects = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchTags(receiptRefusalsAreDefects(effect), { VariantRequired: Effect.die })
