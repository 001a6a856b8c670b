/** Product and stock-movement rows as the drivers return them, and their domain records. */
import { type Access, Inventory, type Orders, type PurchaseOrders, type Returns, Wire } from "@crm/core"
import { iso, jsonValue } from "./rows.js"
import { amount, exactNumber, jsonOf, literalOf } from "./storedValues.js"

type Timestamp = Date | string
type Numeric = string | number

export interface ProductRow {
  readonly id: Inventory.ProductId
  readonly sku: string
  readonly name: string
  readonly unit: string
  readonly unit_price: Numeric
  readonly currency: string
  readonly vat_rate: Numeric
  readonly active: boolean
  readonly kind: string
  readonly category: string | null
  readonly low_stock_threshold: number | null
  readonly options: unknown
  readonly variants: unknown
  /** `{item_id: level}` of the product's stock items (JSON), NULL when it has none. */
  readonly levels: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const productKind = literalOf("kind", Inventory.ProductKind)
const productOptions = jsonOf("options", Inventory.Product.shape.options)
const productVariants = jsonOf("variants", Inventory.Product.shape.variants)

/** Variants are stored without their stock (their items' levels hold it): `withLevels` fills it in. */
const variantsBeforeLevels = (variants: unknown): unknown =>
  Array.isArray(variants)
    ? variants.map((variant) => (Wire.isPlainObject(variant) ? { ...variant, stock: null } : variant))
    : variants

export const toProduct = (row: ProductRow): Inventory.Product =>
  Inventory.ProductRules.withLevels(
    {
      id: row.id,
      sku: row.sku,
      name: row.name,
      unit: row.unit,
      unit_price: amount("unit_price", row.unit_price),
      currency: row.currency,
      vat_rate: exactNumber("vat_rate", row.vat_rate),
      active: row.active,
      kind: productKind(row.kind),
      category: row.category,
      low_stock_threshold: row.low_stock_threshold === null ? null : Number(row.low_stock_threshold),
      stock: null,
      options: productOptions(row.options),
      variants: productVariants(variantsBeforeLevels(jsonValue<unknown>(row.variants))),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at)
    },
    new Map(Object.entries(jsonValue<Record<string, number | null> | null>(row.levels) ?? {}))
  )

export interface StockMovementRow {
  readonly id: Inventory.StockMovementId
  readonly product_id: Inventory.ProductId
  readonly variant_id: Inventory.VariantId | null
  readonly kind: string
  readonly quantity: number
  readonly level: number | null
  readonly key_id: Access.KeyId | null
  readonly order_id: Orders.OrderId | null
  readonly purchase_order_id: PurchaseOrders.PurchaseOrderId | null
  readonly return_id: Returns.ReturnId | null
  readonly note: string | null
  readonly created_at: Timestamp
}

const movementKind = literalOf("kind", Inventory.MovementKind)

export const toStockMovement = (row: StockMovementRow): Inventory.StockMovement => ({
  id: row.id,
  product_id: row.product_id,
  variant_id: row.variant_id,
  kind: movementKind(row.kind),
  quantity: Number(row.quantity),
  level: row.level === null ? null : Number(row.level),
  key_id: row.key_id,
  order_id: row.order_id,
  purchase_order_id: row.purchase_order_id,
  return_id: row.return_id,
  note: row.note,
  created_at: iso(row.created_at)
})
