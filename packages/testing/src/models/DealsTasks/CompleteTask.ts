import { Tasks } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { checkAgainstModel, type Model, type Real } from "./Model.js"

/** `complete` called `times` times at once: the first completion wins, exactly one event in all. */
export class CompleteTask implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly times: number
  ) {}
  check = (model: Readonly<Model>) => model.tasks.length > 0
  async run(model: Model, real: Real) {
    const task = model.tasks[this.pick % model.tasks.length]!
    const result = await attempt(
      real,
      Effect.flatMap(Tasks.Tasks, (tasks) =>
        Effect.all(
          Array.from({ length: this.times }, () => tasks.complete(real.organisation, task.id)),
          {
            concurrency: "unbounded"
          }
        )
      )
    )
    if (result._tag === "Left") throw result.left
    const stamps = new Set(result.right.map((t) => t.completed_at))
    same(stamps.size, 1, `task ${task.id}: every caller sees the one completion time`)
    const [stamp] = [...stamps]
    if (task.done) {
      same(stamp, task.completedAt, `task ${task.id}: a repeated completion keeps the first time`)
    } else {
      task.done = true
      task.completedAt = stamp!
      model.events.push(`task.completed:${task.id}`)
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `CompleteTask(#${this.pick} x${this.times})`
}
