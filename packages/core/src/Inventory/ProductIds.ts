import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a product: branded, so that no other kind of id (or plain string) is taken for one. */
export const ProductId = IdInput.brand<"ProductId">()
export type ProductId = z.output<typeof ProductId>

/** The id of a product's variant: branded, so that no other kind of id (or plain string) is taken for one. */
export const VariantId = IdInput.brand<"VariantId">()
export type VariantId = z.output<typeof VariantId>

/** The id of a stock movement: branded, so that no other kind of id (or plain string) is taken for one. */
export const StockMovementId = IdInput.brand<"StockMovementId">()
export type StockMovementId = z.output<typeof StockMovementId>
