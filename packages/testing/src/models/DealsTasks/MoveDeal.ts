import { Deals, Errors } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { ensure, same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, type Real } from "./Model.js"

/**
 * A move to any stage of either pipeline: refused outside the deal's own pipeline or without the
 * target's required fields, nothing at all when the deal is already there, else moved with events.
 */
export class MoveDeal implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly pipeline: number,
    readonly stage: number
  ) {}
  check = (model: Readonly<Model>) => model.deals.length > 0
  async run(model: Model, real: Real) {
    const deal = model.deals[this.pick % model.deals.length]!
    const pipeline = real.organisation.settings.pipelines[this.pipeline]!
    const target = pipeline.stages[this.stage % pipeline.stages.length]!
    const result = await attempt(
      real,
      Effect.flatMap(Deals.Deals, (deals) =>
        deals.move(real.organisation, deal.id, { status_id: target.id, lost_reason: "price" }, real.actor)
      )
    )
    const refused = pipeline.id !== deal.pipelineId || (target.required_fields.includes("value") && deal.value === null)
    if (target.id === deal.statusId) {
      same(result._tag, "Right", "a move to the stage the deal is in")
    } else if (refused) {
      ensure(
        result._tag === "Left" && result.left instanceof Errors.ValidationFailed,
        "a move outside the pipeline or without a required field is refused with validation_failed"
      )
    } else {
      if (result._tag === "Left") throw result.left
      deal.statusId = target.id
      model.events.push(`deal.status_changed:${deal.id}`)
      if (target.kind !== "open") model.events.push(`deal.${target.kind}:${deal.id}`)
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `MoveDeal(#${this.pick} to pipeline ${this.pipeline} stage ${this.stage})`
}
