/** Product and stock-movement rows as the drivers return them, and their domain records. */
import { Inventory } from "@crm/core"
import { iso, jsonValue } from "./rows.js"

type Timestamp = Date | string
type Numeric = string | number

export interface ProductRow {
  readonly id: string
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

export const toProduct = (row: ProductRow): Inventory.Product =>
  Inventory.ProductRules.withLevels(
    {
      id: row.id,
      sku: row.sku,
      name: row.name,
      unit: row.unit,
      unit_price: Number(row.unit_price),
      currency: row.currency,
      vat_rate: Number(row.vat_rate),
      active: row.active,
      kind: row.kind as Inventory.ProductKind,
      category: row.category,
      low_stock_threshold: row.low_stock_threshold === null ? null : Number(row.low_stock_threshold),
      stock: null,
      options: jsonValue<Inventory.Product["options"]>(row.options),
      variants: jsonValue<Inventory.Product["variants"]>(row.variants),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at)
    },
    new Map(Object.entries(jsonValue<Record<string, number | null> | null>(row.levels) ?? {}))
  )

export interface StockMovementRow {
  readonly id: string
  readonly product_id: string
  readonly variant_id: string | null
  readonly kind: string
  readonly quantity: number
  readonly level: number | null
  readonly key_id: string | null
  readonly order_id: string | null
  readonly purchase_order_id: string | null
  readonly return_id: string | null
  readonly note: string | null
  readonly created_at: Timestamp
}

export const toStockMovement = (row: StockMovementRow): Inventory.StockMovement => ({
  id: row.id,
  product_id: row.product_id,
  variant_id: row.variant_id,
  kind: row.kind as Inventory.MovementKind,
  quantity: Number(row.quantity),
  level: row.level === null ? null : Number(row.level),
  key_id: row.key_id,
  order_id: row.order_id,
  purchase_order_id: row.purchase_order_id,
  return_id: row.return_id,
  note: row.note,
  created_at: iso(row.created_at)
})
