import { Inventory } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, type Real } from "./Model.js"

/** A new product starts untracked, sold in two variants or without any. */
export class CreateProduct implements fc.AsyncCommand<Model, Real> {
  constructor(readonly withVariants: boolean) {}
  check = () => true
  async run(model: Model, real: Real) {
    const result = await attempt(
      real,
      Effect.flatMap(Inventory.Inventory, (inventory) =>
        inventory.create(
          real.organisation,
          {
            sku: crypto.randomUUID(),
            name: "product",
            ...(this.withVariants
              ? {
                  options: [{ name: "size", values: ["S", "M"] }],
                  variants: [{ options: { size: "S" } }, { options: { size: "M" } }]
                }
              : {})
          },
          real.actor
        )
      )
    )
    if (result._tag === "Left") throw result.left
    const variants = result.right.variants.map((variant) => variant.id)
    const keys = variants.length === 0 ? [result.right.id] : variants
    model.products.push({ id: result.right.id, variants, levels: new Map(keys.map((key) => [key, null])) })
    await checkAgainstModel(model, real)
  }
  toString = () => `CreateProduct(${this.withVariants ? "with variants" : "plain"})`
}
