import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError, ValidationFailed } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { Product, ProductKind, StockBand } from "./ProductSchemas.js"

export interface ProductFilter {
  readonly active?: boolean
  readonly category?: string
  readonly kind?: ProductKind
  /** The band of `stock` against the product's `low_stock_threshold`, else `defaultThreshold`. */
  readonly stock?: { readonly band: StockBand; readonly defaultThreshold: number }
}

/**
 * Products of one organisation with their stock levels. Levels are written only through the
 * `StockLedgerStore`; here a product's items (the product itself, or each variant) get an
 * untracked level when they appear and lose it when they go.
 *
 * - `get` and `getForUpdate` answer `stock` and each variant's `stock` as the levels stand.
 * - `insert` and `update` refuse a SKU the organisation already uses (`validation_failed` naming
 *   `sku`). `update` writes everything but stock: the stock fields of the product are ignored;
 *   items that are new start untracked, and the levels of items that are gone are dropped (the
 *   caller makes sure they held none).
 */
export class ProductRepository extends Context.Tag("@crm/core/ProductRepository")<
  ProductRepository,
  Pick<RecordStore<Product, ProductFilter, ValidationFailed>, "insert" | "get" | "getForUpdate" | "update" | "list"> & {
    /** The product with this SKU (unique in the organisation). */
    readonly findBySku: (
      organisationId: OrganisationId,
      sku: string
    ) => Effect.Effect<Option.Option<Product>, StorageError>
  }
>() {}
