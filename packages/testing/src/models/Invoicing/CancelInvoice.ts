import { Invoicing } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, pick, type Real } from "./Model.js"

/** A draft is cancelled outright, unnumbered and without an event; anything else is refused (a storno reverses it). */
export class CancelInvoice implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.invoices.length > 0
  async run(model: Model, real: Real) {
    const invoice = pick(model, this.pick)
    const result = await attempt(
      real,
      Effect.flatMap(Invoicing.Invoicing, (invoicing) => invoicing.cancel(real.organisation, invoice.id))
    )
    if (invoice.status !== "draft") {
      same(
        result._tag === "Left" && result.left.code,
        "transition_not_allowed",
        `cancelling a ${invoice.status} invoice`
      )
    } else {
      if (result._tag === "Left") throw result.left
      invoice.status = "cancelled"
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `CancelInvoice(#${this.pick})`
}
