import { Errors, Inventory } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isUniqueViolation, orStorageError } from "./internal/errors.js"
import { productLevels, productTable, toProduct } from "./internal/inventoryRows.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { textArray } from "./internal/values.js"
import filterIndexes from "./migrations/0028_filter_indexes.js"

// The indexes of the list filters that had none, the stock bands' among them (`stockBand`).
export const migrations = { "0028_filter_indexes": filterIndexes }

const LIVE_SKU = "products_sku"

/**
 * A stock band as the condition of a list, in the terms of migration 0028's indexes and
 * statistics: untracked and out are equalities on `products_stock`, read in list order; low and ok
 * are ranges of it for products on the organisation's threshold and of `products_stock_own` for
 * those with their own, which the planner weighs against walking the list. The whole condition is
 * text, the organisation's threshold (an integer of the settings) written into it: sent as a
 * parameter, a generic plan guesses a third of the rows for its range and walks the whole list for
 * a band that holds none. Stock and thresholds are never negative, so these are the rows
 * `StockLedger.band` puts in each band.
 */
export const stockBand = ({ band, defaultThreshold }: NonNullable<Inventory.ProductFilter["stock"]>): string => {
  // An integer by the settings' schema; checked here all the same, since it is written into SQL text.
  if (!Number.isSafeInteger(defaultThreshold)) throw new RangeError(`stock threshold ${defaultThreshold}`)
  const d = defaultThreshold
  switch (band) {
    case "untracked":
      return "COALESCE(stock, -1) = -1"
    case "out":
      return "COALESCE(stock, -1) = 0"
    case "low":
      return `((low_stock_threshold IS NULL AND COALESCE(stock, -1) BETWEEN 1 AND ${d})
        OR (stock > 0 AND stock::bigint - low_stock_threshold <= 0))`
    case "ok":
      return `((low_stock_threshold IS NULL AND COALESCE(stock, -1) > ${d})
        OR (stock > 0 AND stock::bigint - low_stock_threshold > 0))`
  }
}

/**
 * The index ranges of the `low` and `ok` bands (`LiveRecords.IndexRange`), whose rows are
 * `stockBand`'s: those on the organisation's threshold by `products_stock`, those with their own by
 * `products_stock_own`. Read in their indexes' order, a band that holds few of the organisation's
 * products is read whole and sorted, and one that holds many is walked in list order, whichever
 * the table's statistics would have the planner guess.
 */
export const stockRanges = ({
  band,
  defaultThreshold
}: NonNullable<Inventory.ProductFilter["stock"]>): ReadonlyArray<{ condition: string; order: string }> | undefined => {
  if (band !== "low" && band !== "ok") return undefined
  if (!Number.isSafeInteger(defaultThreshold)) throw new RangeError(`stock threshold ${defaultThreshold}`)
  const [onDefault, own] =
    band === "low" ? [`BETWEEN 1 AND ${defaultThreshold}`, "<= 0"] : [`> ${defaultThreshold}`, "> 0"]
  return [
    { condition: `low_stock_threshold IS NULL AND COALESCE(stock, -1) ${onDefault}`, order: "COALESCE(stock, -1)" },
    {
      condition: `stock > 0 AND low_stock_threshold IS NOT NULL AND stock::bigint - low_stock_threshold ${own}`,
      order: "stock::bigint - low_stock_threshold"
    }
  ]
}

const products = LiveRecords.liveTable({
  table: productTable,
  // The levels of the product's items, read in the same statement as the product (and under its lock).
  computed: productLevels,
  toRecord: toProduct,
  repository: "ProductRepository"
})

const skuTaken = Errors.invalidField("sku", "another product of the organisation has this SKU", "sku_taken")

export const make: Effect.Effect<
  Context.Tag.Service<typeof Inventory.ProductRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, products)

  // In its own savepoint, so that a taken SKU rolls back only the write and the caller's unit can go on.
  const guardSku = <A>(write: Effect.Effect<A, SqlError>) =>
    sql.withTransaction(write).pipe(
      Effect.catchIf(
        (error) => isUniqueViolation(error, LIVE_SKU),
        () => Effect.fail(skuTaken)
      )
    )

  const itemKeys = (product: Inventory.Product) =>
    textArray(Inventory.ProductRules.items(product).map((item) => item.key))

  // New items start untracked; the caller has made sure the ones that go held no stock.
  const syncItems = (organisationId: string, product: Inventory.Product) =>
    Effect.all([
      sql`DELETE FROM stock_levels WHERE organisation_id = ${organisationId}::uuid AND product_id = ${product.id}::uuid
        AND NOT (item_id = ANY(${itemKeys(product)}::uuid[]))`,
      sql`INSERT INTO stock_levels (item_id, organisation_id, product_id, level)
        SELECT key, ${organisationId}::uuid, ${product.id}::uuid, NULL FROM unnest(${itemKeys(product)}::uuid[]) AS key
        ON CONFLICT (organisation_id, item_id) DO NOTHING`,
      // Clamped to the integer column: only the stock filter reads it, and a sum over many variants
      // (each at most StockLedger.MAX_LEVEL) may pass 2^31 while every band stays the same.
      sql`UPDATE products SET stock = (SELECT CASE WHEN sum(level) > 2147483647 THEN 2147483647 ELSE sum(level) END
        FROM stock_levels WHERE stock_levels.organisation_id = products.organisation_id
          AND stock_levels.product_id = products.id)
        WHERE organisation_id = ${organisationId}::uuid AND id = ${product.id}::uuid`
    ])

  return Inventory.ProductRepository.of({
    insert: (organisationId, product) =>
      guardSku(
        Effect.zipRight(
          // The total in `stock` is the items' (`syncItems`), none yet.
          sql`INSERT INTO products ${productTable.insert(sql, product, {
            organisation_id: sql`${organisationId}::uuid`,
            stock: sql`NULL`
          })}`,
          syncItems(organisationId, product)
        )
      ).pipe(Effect.asVoid, orStorageError("ProductRepository.insert")),
    get: live.get,
    findBySku: (organisationId, sku) => live.findBy(organisationId, sql`sku = ${sku}`, "findBySku", true),
    // Lock first, read after: a locking read that waited would see the product row as committed
    // meanwhile but its levels (a subquery) as of before the wait.
    getForUpdate: (organisationId, id) =>
      sql`SELECT id FROM products WHERE ${live.whereLive(organisationId)} AND id = ${id}::uuid FOR UPDATE`.pipe(
        orStorageError("ProductRepository.getForUpdate"),
        Effect.zipRight(live.get(organisationId, id))
      ),
    update: (organisationId, product) =>
      guardSku(
        Effect.flatMap(
          sql`UPDATE products SET ${productTable.assignments(sql, product, ["id", "created_at"])}
            WHERE organisation_id = ${organisationId}::uuid AND id = ${product.id}::uuid AND archived_at IS NULL
            RETURNING id`,
          // Like the other repositories, an unknown id is left alone.
          (rows) => (rows.length === 0 ? Effect.void : syncItems(organisationId, product))
        )
      ).pipe(Effect.asVoid, orStorageError("ProductRepository.update")),
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        [
          ...(filter.active !== undefined ? [sql`active = ${filter.active}::boolean`] : []),
          ...(filter.category !== undefined ? [sql`category = ${filter.category}`] : []),
          ...(filter.kind !== undefined ? [sql`kind = ${filter.kind}`] : []),
          ...(filter.stock !== undefined ? [sql.literal(stockBand(filter.stock))] : [])
        ],
        filter.stock === undefined
          ? undefined
          : stockRanges(filter.stock)?.map((range) => ({ condition: sql.literal(range.condition), order: range.order }))
      )
  })
})

export const layer = Layer.effect(Inventory.ProductRepository, make)
