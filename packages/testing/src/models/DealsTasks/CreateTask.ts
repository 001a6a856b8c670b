import { Tasks } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, type Real } from "./Model.js"

/** A task, attached to one of the deals when there is one to pick. */
export class CreateTask implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number | null) {}
  check = () => true
  async run(model: Model, real: Real) {
    const deal =
      this.pick === null || model.deals.length === 0 ? undefined : model.deals[this.pick % model.deals.length]
    const result = await attempt(
      real,
      Effect.flatMap(Tasks.Tasks, (tasks) =>
        tasks.create(
          real.organisation,
          { title: "task", ...(deal === undefined ? {} : { entity_type: "deal" as const, entity_id: deal.id }) },
          real.actor
        )
      )
    )
    if (result._tag === "Left") throw result.left
    model.tasks.push({ id: result.right.id, done: false, completedAt: null })
    model.events.push(`task.created:${result.right.id}`)
    await checkAgainstModel(model, real)
  }
  toString = () => `CreateTask(deal #${this.pick})`
}
