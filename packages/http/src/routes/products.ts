import { Inventory } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { read, route, write } from "../Route.js"
import { actorOf } from "./principal.js"
import { batchRoute, createRoute, getRoute, listRoute, patchRoute, type UpsertSpec, upsertRoute } from "./resource.js"

const spec = {
  service: Inventory.Inventory,
  plural: "products",
  singular: "product",
  pascal: "Product",
  schemas: {
    id: Inventory.ProductId,
    create: Inventory.ProductCreate,
    patch: Inventory.ProductPatch,
    record: Inventory.Product,
    page: Inventory.ProductPage,
    query: Inventory.ProductListQuery
  },
  createErrors: ["validation_failed"],
  updateErrors: [],
  notes: {
    create:
      "Create a product (stock starts untracked; the first count starts tracking). A SKU the organisation already uses is 422 validation_failed naming sku; variant options must be the product's own",
    update:
      "Change a product: omitted fields keep their value, null clears a field, variants replaces every variant (a variant sent with its id keeps its stock; removing one that holds stock is 422); emits product.updated. A taken SKU is 422 naming sku; there is no DELETE, set active: false"
  }
} as const

const bySku: UpsertSpec<typeof Inventory.ProductUpsert> = {
  schema: Inventory.ProductUpsert,
  key: "sku",
  errors: [],
  note: "Change only the fields sent of the product with this SKU, as PATCH does (200; product.updated only when a field changed), or create it (201, product.created; name is then required). Concurrent upserts of one SKU create one product"
}

export const productRoutes = [
  listRoute(spec),
  createRoute(spec),
  batchRoute(spec, bySku),
  getRoute(spec),
  patchRoute(spec),
  upsertRoute(spec, bySku),
  route({
    method: "POST",
    path: "/products/{id}/stock",
    params: { id: Inventory.ProductId },
    operationId: "moveProductStock",
    tag: "products",
    guard: write,
    summary:
      "Record a stock movement in the ledger: exactly one of delta (restock, return or adjust) or count (a stocktake recorded as the difference; null stops tracking); variant_id for a product with variants. 409 insufficient_stock below zero, 409 stock_not_tracked for a delta on untracked stock. Emits nothing",
    body: Inventory.StockMove,
    success: { status: 200, schema: Inventory.Product, description: "the product with its new stock" },
    errors: ["not_found", "validation_failed", "variant_required", "insufficient_stock", "stock_not_tracked"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Inventory.Inventory, (inventory) =>
        inventory.move(principal.organisation, params.id, body, actorOf(principal))
      ).pipe(Effect.map(ok))
  }),
  route({
    method: "GET",
    path: "/products/{id}/stock-movements",
    params: { id: Inventory.ProductId },
    operationId: "listProductStockMovements",
    tag: "products",
    guard: read(),
    summary:
      "The product's stock ledger, newest first: each movement with its signed quantity, the level after it, the key that made it and the order it belongs to",
    query: Inventory.StockMovementQuery,
    success: { status: 200, schema: Inventory.StockMovementPage, description: "a page of stock movements" },
    errors: ["not_found", "validation_failed"],
    handle: ({ principal, params, query }) =>
      Effect.flatMap(Inventory.Inventory, (inventory) =>
        inventory.movements(principal.organisation, params.id, query)
      ).pipe(Effect.map(ok))
  })
]

export const productsArea: Area = {
  api: productRoutes,
  schemaNames: named(
    Inventory,
    "Product",
    "ProductCreate",
    "ProductPatch",
    "ProductPage",
    "ProductKind",
    "ProductOption",
    "Variant",
    "VariantInput",
    "StockBand",
    "StockMove",
    "StockMovement",
    "StockMovementPage",
    "MovementKind",
    "StockSettingsInput"
  )
}
