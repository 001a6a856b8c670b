import { Invoicing } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, items, type Line, type Model, type Real, totalCents } from "./Model.js"

/** A new invoice is an unnumbered draft priced from its lines, and writes no event. */
export class CreateInvoice implements fc.AsyncCommand<Model, Real> {
  constructor(readonly lines: ReadonlyArray<Line>) {}
  check = () => true
  async run(model: Model, real: Real) {
    const result = await attempt(
      real,
      Effect.flatMap(Invoicing.Invoicing, (invoicing) =>
        invoicing.create(real.organisation, { items: items(this.lines) }, real.actor)
      )
    )
    if (result._tag === "Left") throw result.left
    same(result.right.status, "draft", "a new invoice's status")
    model.invoices.push({
      id: result.right.id,
      kind: "normal",
      status: "draft",
      totalCents: totalCents(this.lines),
      payments: [],
      counter: null,
      reverses: null,
      reversedBy: null
    })
    await checkAgainstModel(model, real)
  }
  toString = () => `CreateInvoice(${JSON.stringify(this.lines)})`
}
