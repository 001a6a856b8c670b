import { Tasks } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, type Real } from "./Model.js"

/** PATCH `done: false` reopens: `completed_at` is cleared and no event is written. */
export class ReopenTask implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.tasks.length > 0
  async run(model: Model, real: Real) {
    const task = model.tasks[this.pick % model.tasks.length]!
    const result = await attempt(
      real,
      Effect.flatMap(Tasks.Tasks, (tasks) => tasks.update(real.organisation, task.id, { done: false }, real.actor))
    )
    if (result._tag === "Left") throw result.left
    task.done = false
    task.completedAt = null
    await checkAgainstModel(model, real)
  }
  toString = () => `ReopenTask(#${this.pick})`
}
