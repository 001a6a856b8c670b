/** The product and stock-movement tables, each declared once, and their domain records. */
import { type Access, Inventory, type Orders, type PurchaseOrders, type Returns, Wire } from "@crm/core"
import {
  boolean,
  exact,
  integer,
  json,
  literal,
  money,
  nullable,
  type RowOfTable,
  table,
  text,
  timestamp,
  uuid
} from "./columns.js"
import { jsonValue } from "./storedValues.js"

/** Variants are stored without their stock (their items' levels hold it): `withLevels` fills it in. */
const variantsBeforeLevels = (variants: unknown): unknown =>
  Array.isArray(variants)
    ? variants.map((variant) => (Wire.isPlainObject(variant) ? { ...variant, stock: null } : variant))
    : variants

export const productTable = table("products", {
  id: uuid<Inventory.ProductId>(),
  sku: text(),
  name: text(),
  unit: text(),
  unit_price: money(),
  currency: text(),
  vat_rate: exact(),
  active: boolean(),
  kind: literal(Inventory.ProductKind),
  category: nullable(text()),
  low_stock_threshold: nullable(integer()),
  options: json(Inventory.Product.shape.options),
  variants: json(Inventory.Product.shape.variants, {
    before: variantsBeforeLevels,
    stored: (variants) => variants.map(({ stock: _, ...variant }) => variant)
  }),
  created_at: timestamp(),
  updated_at: timestamp()
})

/** `{item_id: level}` of the product's stock items (JSON), NULL when it has none. */
export const productLevels = {
  levels: "(SELECT json_object_agg(item_id, level) FROM stock_levels WHERE stock_levels.product_id = products.id)"
}

export type ProductRow = RowOfTable<typeof productTable> & { readonly levels: unknown }

export const toProduct = (row: ProductRow): Inventory.Product => {
  const { options, variants, created_at, updated_at, ...product } = productTable.read(row)
  return Inventory.ProductRules.withLevels(
    { ...product, stock: null, options, variants, created_at, updated_at },
    new Map(Object.entries(jsonValue<Record<string, number | null> | null>(row.levels) ?? {}))
  )
}

export const stockMovementTable = table("stock_movements", {
  id: uuid<Inventory.StockMovementId>(),
  product_id: uuid<Inventory.ProductId>(),
  variant_id: nullable(uuid<Inventory.VariantId>()),
  kind: literal(Inventory.MovementKind),
  quantity: integer(),
  level: nullable(integer()),
  key_id: nullable(uuid<Access.KeyId>()),
  order_id: nullable(uuid<Orders.OrderId>()),
  purchase_order_id: nullable(uuid<PurchaseOrders.PurchaseOrderId>()),
  return_id: nullable(uuid<Returns.ReturnId>()),
  note: nullable(text()),
  created_at: timestamp()
})
export type StockMovementRow = RowOfTable<typeof stockMovementTable>
export const toStockMovement = (row: StockMovementRow): Inventory.StockMovement => stockMovementTable.read(row)
