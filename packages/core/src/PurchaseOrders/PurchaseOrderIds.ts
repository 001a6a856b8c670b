import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a purchase order: branded, so that no other kind of id (or plain string) is taken for one. */
export const PurchaseOrderId = IdInput.brand<"PurchaseOrderId">()
export type PurchaseOrderId = z.output<typeof PurchaseOrderId>

/** The id of a purchase order's line: branded, so that no other kind of id (or plain string) is taken for one. */
export const PurchaseOrderLineId = IdInput.brand<"PurchaseOrderLineId">()
export type PurchaseOrderLineId = z.output<typeof PurchaseOrderLineId>
