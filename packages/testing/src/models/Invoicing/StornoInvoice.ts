import { Invoicing } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, paidCents, pick, type Real } from "./Model.js"

/**
 * A storno reverses an unpaid issued invoice: a new, issued invoice of kind storno with the
 * negated total, numbered from the storno series and linked both ways, the original cancelled,
 * invoice.issued written for the storno. Anything else is refused with transition_not_allowed.
 */
export class StornoInvoice implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.invoices.length > 0
  async run(model: Model, real: Real) {
    const original = pick(model, this.pick)
    const result = await attempt(
      real,
      Effect.flatMap(Invoicing.Invoicing, (invoicing) => invoicing.storno(real.organisation, original.id))
    )
    if (original.kind === "storno" || original.status !== "issued" || paidCents(original) !== 0) {
      same(
        result._tag === "Left" && result.left.code,
        "transition_not_allowed",
        `reversing a ${original.kind} ${original.status} invoice`
      )
    } else {
      if (result._tag === "Left") throw result.left
      const storno = result.right
      model.invoices.push({
        id: storno.id,
        kind: "storno",
        status: "issued",
        totalCents: -original.totalCents,
        payments: [],
        counter: ++model.numbered.storno,
        reverses: original.id,
        reversedBy: null
      })
      original.status = "cancelled"
      original.reversedBy = storno.id
      model.events.push(`invoice.issued:${storno.id}`)
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `StornoInvoice(#${this.pick})`
}
