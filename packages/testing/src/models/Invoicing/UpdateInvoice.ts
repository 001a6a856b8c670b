import { Invoicing } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, items, type Line, type Model, pick, type Real, totalCents } from "./Model.js"

/** New lines replace a draft's and reprice it; anything but a draft is refused with not_draft. */
export class UpdateInvoice implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly lines: ReadonlyArray<Line>
  ) {}
  check = (model: Readonly<Model>) => model.invoices.length > 0
  async run(model: Model, real: Real) {
    const invoice = pick(model, this.pick)
    const result = await attempt(
      real,
      Effect.flatMap(Invoicing.Invoicing, (invoicing) =>
        invoicing.update(real.organisation, invoice.id, { items: items(this.lines) }, real.actor)
      )
    )
    if (invoice.status !== "draft") {
      same(result._tag === "Left" && result.left.code, "not_draft", `an update of a ${invoice.status} invoice`)
    } else {
      if (result._tag === "Left") throw result.left
      invoice.totalCents = totalCents(this.lines)
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `UpdateInvoice(#${this.pick}, ${JSON.stringify(this.lines)})`
}
