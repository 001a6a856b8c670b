import { z } from "zod"
import { ContactId } from "../Contacts/ContactIds.js"
import { ProductId, VariantId } from "../Inventory/ProductIds.js"
import { OrderId } from "../Orders/OrderIds.js"
import { PageQuery, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { ReturnId } from "./ReturnIds.js"

export * from "./ReturnIds.js"

export const ReturnStatus = z.enum(["requested", "approved", "rejected", "received", "refunded", "cancelled"])
export type ReturnStatus = z.infer<typeof ReturnStatus>

export const ReturnItem = z.strictObject({
  line: z
    .number()
    .int()
    .min(0)
    .describe("the position of the line in the order's `items`, from 0 (an order's lines never change)"),
  quantity: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .describe("units coming back: at most what the line delivered less what other returns claim")
})
export type ReturnItem = z.output<typeof ReturnItem>

export const ReturnCreate = z.strictObject({
  order_id: OrderId.describe("a live order of the organisation: the one the goods came with"),
  items: z.array(ReturnItem).min(1).max(500),
  reason: z.string().max(2000).nullable().optional()
})

export const ReturnUpdate = z.strictObject({
  status: ReturnStatus.describe("moves along the return status machine")
})

export const ReturnLine = z.object({
  line: z
    .number()
    .int()
    .nullable()
    .describe("the order line it returns (null on returns recorded before returns named their lines)"),
  product_id: ProductId.nullable().describe("the order line's"),
  variant_id: VariantId.nullable().describe("the order line's"),
  name: z.string().describe("the order line's"),
  quantity: z.number().int()
})
export type ReturnLine = z.infer<typeof ReturnLine>

export const Return = z.object({
  id: ReturnId,
  number: z.string(),
  order_id: OrderId,
  contact_id: ContactId.nullable().describe("the order's buyer"),
  status: ReturnStatus,
  reason: z.string().nullable(),
  items: z.array(ReturnLine),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Return = z.infer<typeof Return>
export const ReturnPage = syncPageEnvelope(Return, { archivable: false })

export const ReturnListQuery = z.object({
  status: ReturnStatus.optional(),
  order_id: OrderId.optional(),
  contact_id: ContactId.optional(),
  ...SyncQuery,
  ...PageQuery
})
export type ReturnListQuery = z.output<typeof ReturnListQuery>
