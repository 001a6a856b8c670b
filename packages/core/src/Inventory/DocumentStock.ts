/**
 * Stock as requests and documents name it: the lines and movements of orders, purchase orders and
 * returns, and which item of a product (the product itself, or one of its variants) a line or a
 * stock move names, with that item's level.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { KeyId } from "../Access/KeyIds.js"
import {
  type InsufficientStock,
  invalidField,
  type StockNotTracked,
  type ValidationFailed,
  VariantRequired
} from "../Errors.js"
import type { OrderId } from "../Orders/OrderIds.js"
import type { PurchaseOrderId } from "../PurchaseOrders/PurchaseOrderIds.js"
import type { ReturnId } from "../Returns/ReturnIds.js"
import type { ProductId, VariantId } from "./ProductIds.js"
import type { Product, StockMove } from "./ProductSchemas.js"
import type * as StockLedger from "./StockLedger.js"

/** One line of a document (an order, a purchase order, a return); a line without a product moves nothing. */
export interface DocumentLine {
  readonly product_id: ProductId | null
  readonly variant_id: VariantId | null
  readonly quantity: number
}

/**
 * What a document does to stock: a sale takes it, a cancelled sale gives it back, a purchase
 * order's receipt and a received return bring goods in.
 */
export type DocumentMovement = "sale" | "cancel" | "receipt" | "return"

/** The document the movements belong to (recorded on each ledger entry), who made them, and when. */
export interface DocumentContext {
  readonly keyId: KeyId | null
  readonly at: string
  readonly orderId?: OrderId
  readonly purchaseOrderId?: PurchaseOrderId
  readonly returnId?: ReturnId
}

export type StockError = InsufficientStock | StockNotTracked | VariantRequired | ValidationFailed

/**
 * Goods coming in (a purchase order's receipt, a received return) add to tracked stock and leave
 * untracked stock alone, so the ledger's refusals of taking stock out cannot reach them; the ledger
 * names those refusals because one `moveForDocument` serves sales too. One that arrives all the
 * same is a defect, not an answer the document's operation gives.
 */
export const goodsIn = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchTags(effect, { InsufficientStock: Effect.die, StockNotTracked: Effect.die })

/**
 * Which item of `product` a request names. `at` prefixes the reported paths (`items.3.` for an
 * order line), so that a client sees which of its fields to fix.
 */
export const itemOf = (
  product: Product,
  variantId: VariantId | null | undefined,
  at = ""
): Either.Either<StockLedger.Item, VariantRequired | ValidationFailed> => {
  if (product.options.length === 0) {
    return variantId == null
      ? Either.right({ product_id: product.id, variant_id: null })
      : Either.left(invalidField(`${at}variant_id`, "the product has no variants", "unknown_reference"))
  }
  if (variantId == null) {
    return Either.left(
      new VariantRequired({ detail: { product_id: product.id, message: "the product is sold in variants" } })
    )
  }
  return product.variants.some((variant) => variant.id === variantId)
    ? Either.right({ product_id: product.id, variant_id: variantId })
    : Either.left(invalidField(`${at}variant_id`, "not a variant of this product", "unknown_reference"))
}

export const levelOf = (product: Product, item: StockLedger.Item): StockLedger.Level =>
  item.variant_id === null
    ? product.stock
    : (product.variants.find((variant) => variant.id === item.variant_id)?.stock ?? null)

export const givesBack = (kind: DocumentMovement): boolean => kind === "cancel" || kind === "return"

export const moveOf = (request: StockMove): StockLedger.Move =>
  request.delta !== undefined
    ? { kind: request.reason ?? "adjust", delta: request.delta }
    : { kind: "count", count: request.count ?? null }
