/**
 * The model of deals and tasks the commands are checked against, deliberately simpler than the
 * kernel: where each deal stands, which tasks are done, and the events the log must hold.
 */
import { type Access, Deals, type Events, Money, type Settings, Tasks } from "@crm/core"
import * as Effect from "effect/Effect"
import { ensure, same, sameEventLog } from "../Check.js"
import type * as Runner from "../Runner.js"

/** The kernel's services the commands call. */
export type Services = Access.Access | Deals.Deals | Tasks.Tasks | Events.Events

/** Two pipelines: moves across them must be refused; one stage requires `value`. */
export const SETTINGS = {
  pipelines: [
    {
      name: "Sales",
      stages: [
        { name: "Lead", kind: "open" as const },
        { name: "Proposal", kind: "open" as const, required_fields: ["value"] },
        { name: "Won", kind: "won" as const },
        { name: "Lost", kind: "lost" as const }
      ]
    },
    {
      name: "Renewals",
      stages: [
        { name: "Due", kind: "open" as const },
        { name: "Renewed", kind: "won" as const }
      ]
    }
  ]
}

export interface ModelDeal {
  readonly id: Deals.DealId
  pipelineId: string
  statusId: string
  /** The number the deal's value was written as; the kernel holds it as the exact `Money.Amount`. */
  value: number | null
}

export interface ModelTask {
  readonly id: Tasks.TaskId
  done: boolean
  completedAt: string | null
}

export interface Model {
  readonly deals: Array<ModelDeal>
  readonly tasks: Array<ModelTask>
  /** `event:subject id`, in the order the log must hold them. */
  readonly events: Array<string>
}

export type Real = Runner.Real<Services>

export const stage = (organisation: Settings.Organisation, pipeline: number, index: number) =>
  organisation.settings.pipelines[pipeline]!.stages[index]!

export const stageById = (organisation: Settings.Organisation, id: string) =>
  organisation.settings.pipelines.flatMap((p) => p.stages).find((s) => s.id === id)!

/** The invariants that hold after every command, and the event log equal to the model's. */
export const checkAgainstModel = async (model: Model, real: Real) => {
  const { organisation } = real
  await real.kernel.run(
    Effect.gen(function* () {
      const deals = yield* Deals.Deals
      for (const expected of model.deals) {
        const deal = yield* deals.get(organisation, expected.id)
        const pipeline = organisation.settings.pipelines.find((p) => p.id === deal.pipeline_id)!
        const current = pipeline.stages.find((s) => s.id === deal.status_id)
        ensure(current !== undefined, `deal ${deal.id}: its stage is always one of its own pipeline`)
        same(deal.status_kind, current!.kind, `deal ${deal.id}: status_kind`)
        ensure(
          (deal.closed_at === null) === (current!.kind === "open"),
          `deal ${deal.id}: closed_at is set exactly when won or lost`
        )
        same(
          { pipeline: deal.pipeline_id, status: deal.status_id, value: deal.value },
          {
            pipeline: expected.pipelineId,
            status: expected.statusId,
            value: expected.value === null ? null : Money.ofNumber(expected.value)
          },
          `deal ${deal.id}`
        )
      }
      const tasks = yield* Tasks.Tasks
      for (const expected of model.tasks) {
        const task = yield* tasks.get(organisation, expected.id)
        same(
          { done: task.done, completedAt: task.completed_at },
          { done: expected.done, completedAt: expected.completedAt },
          `task ${task.id}`
        )
      }
      yield* sameEventLog(organisation.id, model.events)
    })
  )
}
