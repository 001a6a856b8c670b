import { z } from "zod"
import { PageQuery, pageEnvelope, Timestamp } from "../Wire.js"

export const ReturnStatus = z.enum(["requested", "approved", "rejected", "received", "refunded", "cancelled"])
export type ReturnStatus = z.infer<typeof ReturnStatus>

export const ReturnItem = z.strictObject({
  product_id: z.uuid().nullable().optional(),
  variant_id: z.uuid().nullable().optional(),
  name: z.string().min(1).max(500),
  quantity: z.number().int().min(1).max(1_000_000)
})

export const ReturnCreate = z.strictObject({
  order_id: z.uuid().describe("a live order of the organisation: the one the goods came with"),
  items: z.array(ReturnItem).min(1).max(500),
  reason: z.string().max(2000).nullable().optional()
})

export const ReturnUpdate = z.strictObject({
  status: ReturnStatus.describe("moves along the return status machine")
})

export const Return = z.object({
  id: z.uuid(),
  number: z.string(),
  order_id: z.uuid(),
  contact_id: z.uuid().nullable().describe("the order's buyer"),
  status: ReturnStatus,
  reason: z.string().nullable(),
  items: z.array(
    z.object({
      product_id: z.uuid().nullable(),
      variant_id: z.uuid().nullable(),
      name: z.string(),
      quantity: z.number().int()
    })
  ),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Return = z.infer<typeof Return>
export const ReturnPage = pageEnvelope(Return)

export const ReturnListQuery = z.object({
  status: ReturnStatus.optional(),
  order_id: z.uuid().optional(),
  contact_id: z.uuid().optional(),
  ...PageQuery
})
export type ReturnListQuery = z.output<typeof ReturnListQuery>
