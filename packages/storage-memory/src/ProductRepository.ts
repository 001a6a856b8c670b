/** Products in memory: rows per organisation with their levels in place, plus an index of the holder of each SKU. */
import { Errors, Inventory } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as LiveRecords from "./internal/liveRecords.js"
import { copy, type Store, slot, type Tenant, tenant, withTenant, write } from "./internal/Store.js"

type Product = Inventory.Product

/** Products with their stock levels in place (`stock`, each variant's `stock`), which the stock ledger moves. */
export const products = LiveRecords.table<Product>("products")
/** The product holding each SKU: the uniqueness rule, checked in O(1). */
const productSkus = slot("products.skus", HashMap.empty<string, string>())

const skuTaken = Errors.invalidField("sku", "another product of the organisation has this SKU", "sku_taken")

const indexSku = (
  t: Tenant,
  product: Product,
  previous: Product | undefined
): Either.Either<Tenant, Errors.ValidationFailed> => {
  const skus = productSkus.get(t)
  const holder = HashMap.get(skus, product.sku)
  if (Option.isSome(holder) && holder.value !== product.id) return Either.left(skuTaken)
  const freed = previous === undefined ? skus : HashMap.remove(skus, previous.sku)
  return Either.right(productSkus.set(t, HashMap.set(freed, product.sku, product.id)))
}

const untracked = (product: Product): Product => Inventory.ProductRules.withLevels(product, new Map())

export const make = (store: Store): Context.Tag.Service<typeof Inventory.ProductRepository> => {
  const live = LiveRecords.make<Product, Errors.ValidationFailed>(store, {
    table: products,
    noun: "product",
    onWrite: indexSku
  })
  return Inventory.ProductRepository.of({
    insert: (organisationId, product) => live.insert(organisationId, untracked(product)),
    get: live.get,
    findBySku: (organisationId, sku) => live.findBy(organisationId, (product) => product.sku === sku),
    getForUpdate: live.getForUpdate,
    // The stock of what stays is the stored one, whatever the caller sent: only the ledger moves it.
    update: (organisationId, input) =>
      Effect.flatMap(copy(input), (product) =>
        write<void, Errors.ValidationFailed>(store, (state) => {
          const t = tenant(state, organisationId)
          const current = HashMap.get(products.get(t), product.id).pipe(Option.filter((row) => row.archivedAt === null))
          if (Option.isNone(current)) return [Either.right(undefined), state]
          const next = Inventory.ProductRules.carryStock(current.value.record, product)
          const indexed = indexSku(t, next, current.value.record)
          if (Either.isLeft(indexed)) return [Either.left(indexed.left), state]
          const stored = products.update(indexed.right, (rows) =>
            HashMap.set(rows, next.id, { record: next, archivedAt: null })
          )
          return [Either.right(undefined), withTenant(state, organisationId, stored)]
        })
      ),
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (product) =>
          (filter.active === undefined || product.active === filter.active) &&
          (filter.category === undefined || product.category === filter.category) &&
          (filter.kind === undefined || product.kind === filter.kind) &&
          (filter.stock === undefined ||
            Inventory.StockLedger.band(product.stock, product.low_stock_threshold ?? filter.stock.defaultThreshold) ===
              filter.stock.band)
      )
  })
}
