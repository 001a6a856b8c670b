import { z } from "zod"
import { ProductId, VariantId } from "../Inventory/ProductIds.js"
import { PageQuery, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { PurchaseOrderId, PurchaseOrderLineId } from "./PurchaseOrderIds.js"

export * from "./PurchaseOrderIds.js"

export const PurchaseOrderStatus = z.enum(["draft", "ordered", "partial", "received", "cancelled"])
export type PurchaseOrderStatus = z.infer<typeof PurchaseOrderStatus>

const quantity = z.number().int().min(1).max(1_000_000)

export const PurchaseOrderCreate = z.strictObject({
  supplier: z.string().min(1).max(200).describe("the supplier's name"),
  items: z
    .array(
      z
        .strictObject({
          product_id: ProductId.nullable()
            .optional()
            .describe("a product of the organisation; units received enter its tracked stock"),
          variant_id: VariantId.nullable().optional().describe("required for a product sold in variants"),
          name: z.string().min(1).max(500),
          quantity: quantity.describe("units ordered")
        })
        .refine((line) => line.variant_id == null || line.product_id != null, {
          message: "a variant_id needs its product_id",
          path: ["variant_id"]
        })
    )
    .min(1)
    .max(500),
  note: z.string().max(10_000).nullable().optional()
})

/** Goods that arrived: per line, how many units (added to what earlier receipts recorded). */
export const PurchaseOrderReceipt = z.strictObject({
  items: z
    .array(z.strictObject({ line_id: PurchaseOrderLineId.describe("the `id` of a line of the order"), quantity }))
    .min(1)
    .max(500)
})
export type PurchaseOrderReceipt = z.output<typeof PurchaseOrderReceipt>

export const PurchaseOrderLine = z.object({
  id: PurchaseOrderLineId,
  product_id: ProductId.nullable(),
  variant_id: VariantId.nullable(),
  name: z.string(),
  quantity: z.number().int(),
  received_quantity: z.number().int()
})
export type PurchaseOrderLine = z.infer<typeof PurchaseOrderLine>

export const PurchaseOrder = z.object({
  id: PurchaseOrderId,
  number: z.string(),
  supplier: z.string(),
  status: PurchaseOrderStatus,
  items: z.array(PurchaseOrderLine),
  note: z.string().nullable(),
  ordered_at: Timestamp.nullable().describe("when the order went to the supplier"),
  received_at: Timestamp.nullable().describe("when the last missing unit arrived"),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type PurchaseOrder = z.infer<typeof PurchaseOrder>
export const PurchaseOrderPage = syncPageEnvelope(PurchaseOrder, { archivable: false })

export const PurchaseOrderListQuery = z.object({
  status: PurchaseOrderStatus.optional(),
  ...SyncQuery,
  ...PageQuery
})
export type PurchaseOrderListQuery = z.output<typeof PurchaseOrderListQuery>
