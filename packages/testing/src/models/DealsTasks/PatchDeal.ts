import { Deals, Money } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, type Real } from "./Model.js"

/** PATCH changes fields but never the stage. */
export class PatchDeal implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly value: number | null
  ) {}
  check = (model: Readonly<Model>) => model.deals.length > 0
  async run(model: Model, real: Real) {
    const deal = model.deals[this.pick % model.deals.length]!
    const result = await attempt(
      real,
      Effect.flatMap(Deals.Deals, (deals) =>
        deals.update(
          real.organisation,
          deal.id,
          { value: this.value === null ? null : Money.ofNumber(this.value) },
          real.actor
        )
      )
    )
    if (result._tag === "Left") throw result.left
    deal.value = this.value
    model.events.push(`deal.updated:${deal.id}`)
    await checkAgainstModel(model, real)
  }
  toString = () => `PatchDeal(#${this.pick}, value ${this.value})`
}
