import { Invoicing } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, pick, type Real } from "./Model.js"

/**
 * Issuing numbers a draft with the next counter of its series (no gap, no repeat) and writes
 * invoice.issued; anything but a draft is refused with not_draft.
 */
export class IssueInvoice implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.invoices.length > 0
  async run(model: Model, real: Real) {
    const invoice = pick(model, this.pick)
    const result = await attempt(
      real,
      Effect.flatMap(Invoicing.Invoicing, (invoicing) => invoicing.issue(real.organisation, invoice.id, {}))
    )
    if (invoice.status !== "draft") {
      same(result._tag === "Left" && result.left.code, "not_draft", `issuing a ${invoice.status} invoice`)
    } else {
      if (result._tag === "Left") throw result.left
      invoice.status = "issued"
      invoice.counter = ++model.numbered[invoice.kind]
      model.events.push(`invoice.issued:${invoice.id}`)
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `IssueInvoice(#${this.pick})`
}
