import { PurchaseOrders } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import type { Line } from "./DocumentStock.js"
import { checkAgainstModel, type Model, pickItem, type Real } from "./Model.js"

/**
 * A purchase order for some items, ordered and then received through the service, whole or in
 * two receipts: each receipt adds its units to tracked items, untracked ones stay untracked.
 */
export class ReceivePurchaseOrder implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly lines: ReadonlyArray<Line>,
    readonly split: boolean
  ) {}
  check = (model: Readonly<Model>) => model.products.length > 0
  async run(model: Model, real: Real) {
    const picked = this.lines.map((line) => ({
      ...pickItem(model, line.product, line.variant),
      quantity: line.quantity
    }))
    const receipts = this.split
      ? [picked.map((line) => Math.floor(line.quantity / 2)), picked.map((line) => Math.ceil(line.quantity / 2))]
      : [picked.map((line) => line.quantity)]
    const result = await attempt(
      real,
      Effect.gen(function* () {
        const purchases = yield* PurchaseOrders.PurchaseOrders
        const created = yield* purchases.create(real.organisation, {
          supplier: "model",
          items: picked.map((line) => ({
            product_id: line.product.id,
            variant_id: line.variantId,
            name: "goods",
            quantity: line.quantity
          }))
        })
        yield* purchases.order(real.organisation, created.id)
        let order = created
        for (const quantities of receipts) {
          const items = created.items.flatMap((line, n) =>
            quantities[n]! > 0 ? [{ line_id: line.id, quantity: quantities[n]! }] : []
          )
          if (items.length > 0) order = yield* purchases.receive(real.organisation, created.id, { items }, real.actor)
        }
        return order
      })
    )
    if (result._tag === "Left") throw result.left
    same(result.right.status, "received", "a purchase order received in full")
    for (const line of picked) {
      const level = line.product.levels.get(line.key)!
      if (level !== null) line.product.levels.set(line.key, level + line.quantity)
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `ReceivePurchaseOrder(${JSON.stringify(this.lines)}${this.split ? " in two receipts" : ""})`
}
