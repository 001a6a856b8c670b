import { Errors, Inventory } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { atomically } from "./internal/atomically.js"
import { orStorageError } from "./internal/errors.js"
import { type StockMovementRow, stockMovementTable, toStockMovement } from "./internal/inventoryRows.js"

const stale = (message: string) =>
  Effect.fail(new Errors.StorageError({ message: `StockLedgerStore.append: ${message}` }))

export const make: Effect.Effect<
  Context.Tag.Service<typeof Inventory.StockLedgerStore>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return Inventory.StockLedgerStore.of({
    // One savepoint (or transaction): the level, the ledger row and the product's total change together.
    append: (organisationId, movement) =>
      atomically(sql)(
        Effect.gen(function* () {
          const held = yield* sql`SELECT id FROM products WHERE organisation_id = ${organisationId}::uuid
              AND id = ${movement.product_id}::uuid AND archived_at IS NULL FOR UPDATE`
          if (held.length === 0) return yield* stale(`no product ${movement.product_id}`)
          const key = Inventory.StockLedger.itemKey(movement)
          // Conditional on the level the movement was computed from, so a caller that did not
          // hold the product cannot write a level the ledger does not add up to.
          const moved = yield* sql`UPDATE stock_levels SET level = ${movement.level}::integer
              WHERE organisation_id = ${organisationId}::uuid AND item_id = ${key}::uuid
                AND product_id = ${movement.product_id}::uuid AND COALESCE(level, 0) = ${(movement.level ?? 0) - movement.quantity}::integer
              RETURNING item_id`
          if (moved.length === 0) return yield* stale(`the level of ${key} is not the one the movement started from`)
          yield* sql`INSERT INTO stock_movements ${stockMovementTable.insert(sql, movement, {
            organisation_id: sql`${organisationId}::uuid`
          })}`
          // Clamped like ProductRepository's: the filter column is an integer, a variant sum may pass it.
          yield* sql`UPDATE products
              SET stock = (SELECT CASE WHEN sum(level) > 2147483647 THEN 2147483647 ELSE sum(level) END
                FROM stock_levels WHERE stock_levels.organisation_id = products.organisation_id
                  AND stock_levels.product_id = products.id)
              WHERE organisation_id = ${organisationId}::uuid AND id = ${movement.product_id}::uuid`
        })
      ).pipe(orStorageError("StockLedgerStore.append")),
    list: (organisationId, productId, filter, page) =>
      sql<StockMovementRow>`SELECT ${sql.literal(stockMovementTable.selected)}
        FROM stock_movements
        WHERE ${sql.and([
          sql`organisation_id = ${organisationId}::uuid AND product_id = ${productId}::uuid`,
          ...(filter.variantId === undefined ? [] : [sql`variant_id = ${filter.variantId}::uuid`])
        ])}
        ORDER BY seq DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
        Effect.map((rows) => rows.map(toStockMovement)),
        orStorageError("StockLedgerStore.list")
      )
  })
})

export const layer = Layer.effect(Inventory.StockLedgerStore, make)
