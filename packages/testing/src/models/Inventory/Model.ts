/**
 * The model the inventory commands are checked against, deliberately simpler than the kernel: for
 * each product, its stock items (the product itself, or each variant) and the level each holds.
 */
import { type Access, Inventory, type PurchaseOrders } from "@crm/core"
import * as Effect from "effect/Effect"
import { ensure, same } from "../Check.js"
import type * as Runner from "../Runner.js"

/** The kernel's services the commands call. */
export type Services = Access.Access | Inventory.Inventory | PurchaseOrders.PurchaseOrders

export interface ModelProduct {
  readonly id: Inventory.ProductId
  /** Variant ids; empty for a product sold without variants. */
  readonly variants: ReadonlyArray<Inventory.VariantId>
  /** Level per item key (variant id, or the product id); null while not tracked. */
  readonly levels: Map<string, number | null>
}

export interface Model {
  readonly products: Array<ModelProduct>
}

export type Real = Runner.Real<Services>

/** The item a command's numbers pick: a variant of a product with variants, else the product itself. */
export const pickItem = (model: Model, product: number, variant: number) => {
  const chosen = model.products[product % model.products.length]!
  const variantId = chosen.variants.length === 0 ? null : chosen.variants[variant % chosen.variants.length]!
  return { product: chosen, variantId, key: variantId ?? chosen.id }
}

/** After every command: levels as the model says, never below zero, and each equal to Σ of its ledger. */
export const checkAgainstModel = async (model: Model, real: Real) => {
  await real.kernel.run(
    Effect.gen(function* () {
      const inventory = yield* Inventory.Inventory
      for (const expected of model.products) {
        const product = yield* inventory.get(real.organisation, expected.id)
        const levels = new Map<string, number | null>(
          product.options.length === 0
            ? [[product.id, product.stock]]
            : product.variants.map((variant) => [variant.id, variant.stock])
        )
        same(levels, expected.levels, `levels of product ${product.id}`)
        same(
          product.stock,
          Inventory.StockLedger.aggregate([...expected.levels.values()]),
          `stock of product ${product.id}`
        )
        const ledger = yield* inventory.movements(real.organisation, expected.id, { limit: 200, offset: 0 })
        for (const [key, level] of expected.levels) {
          ensure(level === null || level >= 0, `level of ${key} never below zero`)
          const rows = ledger.data.filter((row) => (row.variant_id ?? row.product_id) === key)
          same(Inventory.StockLedger.sum(rows), level ?? 0, `Σ ledger of ${key}`)
        }
      }
    })
  )
}
