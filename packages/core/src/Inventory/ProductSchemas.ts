/** Products, their variants and stock movements as they travel on the wire. */
import { z } from "zod"
import { KeyId } from "../Access/KeyIds.js"
import { Amount, amount } from "../Money/Amount.js"
import { Currency } from "../Money/Currency.js"
import { OrderId } from "../Orders/OrderIds.js"
import { PurchaseOrderId } from "../PurchaseOrders/PurchaseOrderIds.js"
import { ReturnId } from "../Returns/ReturnIds.js"
import { IdInput, PageQuery, pageEnvelope, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { ProductId, StockMovementId, VariantId } from "./ProductIds.js"
import { MAX_LEVEL, MovementKind, StockBand } from "./StockLedger.js"

export * from "./ProductIds.js"
export { MovementKind, StockBand } from "./StockLedger.js"

export const ProductKind = z.enum(["physical", "service", "digital", "dropship", "gift_card"])
export type ProductKind = z.infer<typeof ProductKind>

const Sku = z.string().trim().min(1).max(100)
const Price = amount(z.number().min(0).max(1e12))

export const ProductOption = z.strictObject({
  name: z.string().trim().min(1).max(50),
  values: z
    .array(z.string().trim().min(1).max(100))
    .min(1)
    .max(100)
    .refine((values) => new Set(values).size === values.length, "values must be distinct")
})
export type ProductOption = z.infer<typeof ProductOption>

const Options = z
  .array(ProductOption)
  .max(5)
  .refine((options) => new Set(options.map((o) => o.name)).size === options.length, "option names must be distinct")

export const VariantInput = z.strictObject({
  id: IdInput.optional().describe("on PATCH: an existing variant's id keeps that variant (and its stock)"),
  sku: Sku.nullable().optional(),
  options: z.record(z.string(), z.string()).describe("one value for each of the product's options, by option name"),
  unit_price: Price.nullable().optional().describe("net; null or omitted: the product's unit_price")
})
export type VariantInput = z.output<typeof VariantInput>

const fields = {
  sku: Sku.describe("unique in the organisation (a taken SKU is 422 validation_failed naming sku)"),
  name: z.string().trim().min(1).max(500),
  unit: z.string().trim().min(1).max(20).optional().describe("default pcs"),
  unit_price: Price.optional().describe("net price of one unit, default 0; at most the currency's minor unit"),
  currency: Currency.optional().describe("default the organisation's default_currency"),
  vat_rate: z.number().min(0).max(100).optional().describe("percent added on top of the net price, default 0"),
  active: z.boolean().optional().describe("default true; there is no DELETE, an inactive product is retired"),
  kind: ProductKind.optional().describe("default physical"),
  category: z.string().trim().min(1).max(200).nullable().optional(),
  low_stock_threshold: z
    .number()
    .int()
    .min(0)
    .max(MAX_LEVEL)
    .nullable()
    .optional()
    .describe("stock at or below it (and above 0) is low; null: the organisation's settings.stock.low_stock_threshold"),
  options: Options.optional().describe("non-empty: the product is sold in variants"),
  variants: z.array(VariantInput).max(500).optional()
}

/** Stock starts untracked (`null`); the first `count` starts tracking. */
export const ProductCreate = z.strictObject(fields)

export const ProductPatch = z.strictObject({
  ...fields,
  sku: fields.sku.optional(),
  name: fields.name.optional(),
  variants: fields.variants.describe(
    "replaces every variant; a variant sent with its id keeps its stock; removing one that holds stock (not 0 or null) is refused"
  )
})

/**
 * An upsert keyed by SKU: the fields to set (as on PATCH), and the SKU that names the product (in a
 * batch item; `PUT /products/by-sku/{sku}` takes it from the path). `name` is required only when
 * the upsert creates the product.
 */
export const ProductUpsert = ProductPatch.safeExtend({
  sku: fields.sku.describe("the natural key: the product with this SKU is changed, else created")
})

export const Variant = z.object({
  id: VariantId,
  sku: z.string().nullable(),
  options: z.record(z.string(), z.string()),
  unit_price: Amount.nullable().describe("net; null: the product's unit_price"),
  stock: z.number().int().nullable().describe("null when not tracked")
})
export type Variant = z.infer<typeof Variant>

export const Product = z.object({
  id: ProductId,
  sku: z.string(),
  name: z.string(),
  unit: z.string(),
  unit_price: Amount,
  currency: z.string(),
  vat_rate: z.number(),
  active: z.boolean(),
  kind: ProductKind,
  category: z.string().nullable(),
  low_stock_threshold: z.number().int().nullable(),
  stock: z
    .number()
    .int()
    .nullable()
    .describe(
      "null when not tracked; with variants the sum of the tracked variants' levels, null when none is tracked"
    ),
  options: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
  variants: z.array(Variant),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Product = z.infer<typeof Product>
export const ProductPage = syncPageEnvelope(Product, { archivable: false })

export const ProductListQuery = z.object({
  active: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional(),
  category: z.string().min(1).optional(),
  kind: ProductKind.optional(),
  stock: StockBand.optional().describe(
    "untracked: null; out: 0; low: above 0 and at or below the threshold; ok: above the threshold"
  ),
  ...SyncQuery,
  ...PageQuery
})
export type ProductListQuery = z.output<typeof ProductListQuery>

const onlyOne = (body: { delta?: unknown; count?: unknown }) =>
  (body.delta === undefined) !== (body.count === undefined)

export const StockMove = z
  .strictObject({
    delta: z
      .number()
      .int()
      .refine((n) => n !== 0, "must not be zero")
      .refine((n) => Math.abs(n) <= MAX_LEVEL, "too large")
      .optional()
      .describe("a movement, added to the level"),
    reason: z.enum(["restock", "return", "adjust"]).optional().describe("what the delta was, default adjust"),
    count: z
      .number()
      .int()
      .min(0)
      .max(MAX_LEVEL)
      .nullable()
      .optional()
      .describe("a stocktake, recorded as the difference from the level; null stops tracking"),
    variant_id: VariantId.optional().describe("required for a product with variants, refused for one without"),
    note: z.string().max(1000).optional()
  })
  .refine(onlyOne, { message: "send exactly one of delta or count", path: ["delta"] })
  .refine((body) => body.reason === undefined || body.delta !== undefined, {
    message: "reason goes with delta",
    path: ["reason"]
  })
export type StockMove = z.output<typeof StockMove>

export const StockMovement = z.object({
  id: StockMovementId,
  product_id: ProductId,
  variant_id: VariantId.nullable(),
  kind: MovementKind,
  quantity: z.number().int().describe("signed change of the level"),
  level: z.number().int().nullable().describe("the level after the movement; null when it stopped tracking"),
  key_id: KeyId.nullable().describe("the API key that made it"),
  order_id: OrderId.nullable().describe("the order a sale, a cancellation or a received return belongs to"),
  purchase_order_id: PurchaseOrderId.nullable().describe("the purchase order a receipt belongs to"),
  return_id: ReturnId.nullable().describe("the return whose goods came back"),
  note: z.string().nullable(),
  created_at: Timestamp
})
export type StockMovement = z.infer<typeof StockMovement>
export const StockMovementPage = pageEnvelope(StockMovement)

export const StockMovementQuery = z.object({
  variant_id: VariantId.optional(),
  ...PageQuery
})
export type StockMovementQuery = z.output<typeof StockMovementQuery>
