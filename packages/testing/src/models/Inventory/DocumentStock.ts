import { Inventory } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, pickItem, type Real } from "./Model.js"

export interface Line {
  readonly product: number
  readonly variant: number
  readonly quantity: number
}

/**
 * A document moving stock: an order taking it (sale) or giving it back (cancel), a purchase
 * order's receipt or a received return bringing goods in. Untracked items are skipped, and one
 * line short of stock refuses the whole sale with nothing moved.
 */
export class DocumentStock implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly kind: Inventory.DocumentMovement,
    readonly lines: ReadonlyArray<Line>
  ) {}
  check = (model: Readonly<Model>) => model.products.length > 0
  async run(model: Model, real: Real) {
    const picked = this.lines.map((line) => ({
      ...pickItem(model, line.product, line.variant),
      quantity: line.quantity
    }))
    const result = await attempt(
      real,
      Effect.flatMap(Inventory.Inventory, (inventory) =>
        inventory.moveForDocument(
          real.organisation,
          picked.map((line) => ({ product_id: line.product.id, variant_id: line.variantId, quantity: line.quantity })),
          this.kind,
          { keyId: null, at: new Date().toISOString() }
        )
      )
    )
    const after = new Map<string, number | null>()
    let short = false
    for (const line of picked) {
      const level = after.has(line.key) ? after.get(line.key)! : line.product.levels.get(line.key)!
      if (level === null) continue
      const next = level + (this.kind === "sale" ? -line.quantity : line.quantity)
      if (next < 0) short = true
      after.set(line.key, next)
    }
    if (short) {
      same(result._tag === "Left" && result.left.code, "insufficient_stock", "a sale short of stock")
    } else {
      if (result._tag === "Left") throw result.left
      for (const line of picked) if (after.has(line.key)) line.product.levels.set(line.key, after.get(line.key)!)
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `DocumentStock(${this.kind} ${JSON.stringify(this.lines)})`
}
