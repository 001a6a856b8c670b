/** The stock ledger in memory: each product's movements in order, and the levels kept in the product rows. */
import { Errors, Inventory } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { copy, copyOut, read, type Store, slot, tenant, withTenant, write } from "./internal/Store.js"
import { products } from "./ProductRepository.js"

const { ProductRules, StockLedger } = Inventory

/** Each product's stock ledger, in the order the movements were recorded. */
const stockMovements = slot("stock_movements", HashMap.empty<string, ReadonlyArray<Inventory.StockMovement>>())

const refuse = (message: string) =>
  Either.left(new Errors.StorageError({ message: `StockLedgerStore.append: ${message}` }))

export const make = (store: Store): Context.Tag.Service<typeof Inventory.StockLedgerStore> =>
  Inventory.StockLedgerStore.of({
    append: (organisationId, input) =>
      Effect.flatMap(copy(input), (movement) =>
        write<void, Errors.StorageError>(store, (state) => {
          const t = tenant(state, organisationId)
          const row = HashMap.get(products.get(t), movement.product_id).pipe(
            Option.filter((r) => r.archivedAt === null)
          )
          if (Option.isNone(row)) return [refuse(`no product ${movement.product_id}`), state]
          const product = row.value.record
          const key = StockLedger.itemKey(movement)
          const items = ProductRules.items(product)
          const item = items.find((candidate) => candidate.key === key)
          if (item === undefined) return [refuse(`product ${product.id} has no item ${key}`), state]
          if ((item.level ?? 0) !== (movement.level ?? 0) - movement.quantity) {
            return [refuse(`the level of ${key} is ${item.level}, not the one the movement started from`), state]
          }
          const levels = new Map(items.map((each) => [each.key, each.key === key ? movement.level : each.level]))
          const next = ProductRules.withLevels(product, levels)
          const ledger = Option.getOrElse(HashMap.get(stockMovements.get(t), product.id), () => [])
          const moved = stockMovements.update(
            products.update(t, (rows) => HashMap.set(rows, product.id, { record: next, archivedAt: null })),
            (ledgers) => HashMap.set(ledgers, product.id, [...ledger, movement])
          )
          return [Either.right(undefined), withTenant(state, organisationId, moved)]
        })
      ),
    list: (organisationId, productId, filter, page) =>
      read(store, (state) => {
        const ledger = Option.getOrElse(
          HashMap.get(stockMovements.get(tenant(state, organisationId)), productId),
          () => []
        )
        return ledger
          .filter((movement) => filter.variantId === undefined || movement.variant_id === filter.variantId)
          .reverse()
          .slice(page.offset, page.offset + page.limit + 1)
          .map(copyOut)
      })
  })
