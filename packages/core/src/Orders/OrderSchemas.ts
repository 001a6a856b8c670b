import { z } from "zod"
import { ContactId } from "../Contacts/ContactIds.js"
import { DealId } from "../Deals/DealIds.js"
import { ProductId, VariantId } from "../Inventory/ProductIds.js"
import { Amount, amount } from "../Money/Amount.js"
import { Currency } from "../Money/Currency.js"
import { DocumentAmounts } from "../Pricing/LineSchemas.js"
import { EmailInput, PageQuery, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { OrderId } from "./OrderIds.js"

export * from "./OrderIds.js"

export const OrderFulfilment = z.enum(["new", "confirmed", "shipped", "delivered", "cancelled"])
export type OrderFulfilment = z.infer<typeof OrderFulfilment>

export const OrderPaymentStatus = z.enum(["none", "pending", "paid", "failed"])
export type OrderPaymentStatus = z.infer<typeof OrderPaymentStatus>

export const OrderPaymentMethod = z.enum(["card", "cod", "transfer"])
export type OrderPaymentMethod = z.infer<typeof OrderPaymentMethod>

const name = z.string().max(500)

/**
 * A uuid in the form ids are stored and compared in: lower case. A reference sent in upper case
 * then names the same record on every store, and an order line keeps the product's own id.
 */

export const OrderLineInput = z
  .strictObject({
    product_id: ProductId.nullable().optional().describe("a product of the organisation; its tracked stock is taken"),
    variant_id: VariantId.nullable().optional().describe("required for a product sold in variants"),
    name: z.string().min(1).max(500),
    quantity: z.number().positive().max(1e9),
    unit_price: amount(z.number().min(-1e12).max(1e12)).describe(
      "net price of one unit (negative for a discount line)"
    ),
    vat_rate: z.number().min(0).max(100).describe("percent added on top of the net price")
  })
  // The stock ledger counts whole pieces.
  .refine((line) => line.product_id == null || Number.isInteger(line.quantity), {
    message: "a line with a product_id has a whole quantity",
    path: ["quantity"]
  })
  .refine((line) => line.variant_id == null || line.product_id != null, {
    message: "a variant_id needs its product_id",
    path: ["variant_id"]
  })
export type OrderLineInput = z.output<typeof OrderLineInput>

export const OrderLine = z.object({
  product_id: ProductId.nullable(),
  variant_id: VariantId.nullable(),
  name: z.string(),
  quantity: z.number(),
  unit_price: Amount,
  vat_rate: z.number(),
  net: Amount.describe("quantity × unit price, rounded to the currency's minor unit"),
  vat: Amount.describe("net × rate, rounded"),
  gross: Amount.describe("net + vat"),
  stock_taken: z
    .boolean()
    .describe("whether the sale took this line's quantity from tracked stock (given back if the order is cancelled)")
})
export type OrderLine = z.infer<typeof OrderLine>

export const OrderBuyer = z.strictObject({
  email: EmailInput.describe("the live contact with this address (case-insensitive), else a new contact"),
  first_name: name.nullable().optional(),
  last_name: name.nullable().optional()
})

export const OrderCreate = z
  .strictObject({
    external_id: z.string().min(1).max(200).describe("the webshop's own order id; unique per organisation"),
    contact_id: ContactId.optional().describe("a live contact of the organisation; or send buyer instead"),
    buyer: OrderBuyer.optional(),
    deal_id: DealId.nullable().optional().describe("a live deal of the organisation"),
    currency: Currency.optional().describe("ISO 4217; defaults to the organisation's default currency"),
    payment_method: OrderPaymentMethod.nullable().optional().describe("default null"),
    payment_status: OrderPaymentStatus.optional().describe("default none"),
    items: z.array(OrderLineInput).min(1).max(500)
  })
  .refine((body) => (body.contact_id === undefined) !== (body.buyer === undefined), {
    message: "send exactly one of contact_id or buyer",
    path: ["contact_id"]
  })

export const OrderPatch = z.strictObject({
  fulfilment: OrderFulfilment.optional().describe(
    "new → confirmed | cancelled; confirmed → shipped | cancelled; shipped → delivered"
  ),
  tracking_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe("required when moving to shipped; once given it can be replaced, not cleared"),
  payment_status: OrderPaymentStatus.optional().describe("applied before fulfilment when both are sent")
})

export const Order = z.object({
  id: OrderId,
  order_number: z.string().describe("from the order series of the year, e.g. ORD2026-000001"),
  external_id: z.string(),
  fulfilment: OrderFulfilment,
  payment_status: OrderPaymentStatus,
  payment_method: OrderPaymentMethod.nullable(),
  currency: z.string(),
  items: z.array(OrderLine),
  ...DocumentAmounts,
  tracking_url: z.string().nullable(),
  contact_id: ContactId,
  deal_id: DealId.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Order = z.infer<typeof Order>
export const OrderPage = syncPageEnvelope(Order, { archivable: false })

export const OrderListQuery = z.object({
  fulfilment: OrderFulfilment.optional(),
  payment_status: OrderPaymentStatus.optional(),
  contact_id: ContactId.optional(),
  ...SyncQuery,
  ...PageQuery
})
export type OrderListQuery = z.output<typeof OrderListQuery>
