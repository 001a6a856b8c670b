import { Inventory } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, pickItem, type Real } from "./Model.js"

export type Request = { readonly delta: number } | { readonly count: number | null }

/** `POST /products/{id}/stock` as the kernel sees it: refused exactly when the model says, else one ledger entry. */
export class MoveStock implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly product: number,
    readonly variant: number,
    readonly request: Request
  ) {}
  check = (model: Readonly<Model>) => model.products.length > 0
  async run(model: Model, real: Real) {
    const { product, variantId, key } = pickItem(model, this.product, this.variant)
    const result = await attempt(
      real,
      Effect.flatMap(Inventory.Inventory, (inventory) =>
        inventory.move(
          real.organisation,
          product.id,
          { ...this.request, ...(variantId === null ? {} : { variant_id: variantId }) },
          real.actor
        )
      )
    )
    const level = product.levels.get(key)!
    if ("count" in this.request) {
      if (result._tag === "Left") throw result.left
      product.levels.set(key, this.request.count)
    } else if (level === null) {
      same(result._tag === "Left" && result.left.code, "stock_not_tracked", "a delta on an untracked item")
    } else if (level + this.request.delta < 0) {
      same(result._tag === "Left" && result.left.code, "insufficient_stock", "a delta below zero")
    } else {
      if (result._tag === "Left") throw result.left
      product.levels.set(key, level + this.request.delta)
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `MoveStock(#${this.product}/${this.variant} ${JSON.stringify(this.request)})`
}
