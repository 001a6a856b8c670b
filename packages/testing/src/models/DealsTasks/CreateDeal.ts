import { Deals, Money } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, type Real } from "./Model.js"

/** A new deal lands in the first open stage of the pipeline it names. */
export class CreateDeal implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pipeline: number,
    readonly value: number | null
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const pipeline = real.organisation.settings.pipelines[this.pipeline]!
    const result = await attempt(
      real,
      Effect.flatMap(Deals.Deals, (deals) =>
        deals.create(
          real.organisation,
          { title: "deal", value: this.value === null ? null : Money.ofNumber(this.value), pipeline_id: pipeline.id },
          real.actor
        )
      )
    )
    if (result._tag === "Left") throw result.left
    const firstOpen = pipeline.stages.find((s) => s.kind === "open")!
    same(result.right.status_id, firstOpen.id, "a new deal's stage")
    model.deals.push({ id: result.right.id, pipelineId: pipeline.id, statusId: firstOpen.id, value: this.value })
    model.events.push(`deal.created:${result.right.id}`)
    await checkAgainstModel(model, real)
  }
  toString = () => `CreateDeal(pipeline ${this.pipeline}, value ${this.value})`
}
