/**
 * Model-based test of the deal stage machine and task completion through the kernel, on every
 * store: random sequences of create / patch / move / complete / reopen, each checked against a
 * plain model (stage always in the deal's own pipeline, closed_at exactly when won or lost,
 * exactly one task.completed per completion, the event log equal to the model's).
 * `MODEL_RUNS` raises the number of runs for a longer search outside `npm test`.
 */
import * as Layer from "effect/Layer"
import fc from "fast-check"
import { afterAll, beforeAll, describe, it } from "vitest"
import { build } from "../support/ports.js"
import { storages } from "../support/storages.js"
import { CompleteTask } from "./deals/CompleteTask.js"
import { CreateDeal } from "./deals/CreateDeal.js"
import { CreateTask } from "./deals/CreateTask.js"
import { type KernelBuilt, kernelLayer, type Model, newOrganisation, type Real } from "./deals/Model.js"
import { MoveDeal } from "./deals/MoveDeal.js"
import { PatchDeal } from "./deals/PatchDeal.js"
import { ReopenTask } from "./deals/ReopenTask.js"

const RUNS = Number(process.env.MODEL_RUNS ?? 15)

const value = fc.option(fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.constant(1234.5)), { nil: null })

const commands = fc.commands(
  [
    fc.tuple(fc.integer({ min: 0, max: 1 }), value).map(([pipeline, v]) => new CreateDeal(pipeline, v)),
    fc.tuple(fc.nat(), value).map(([pick, v]) => new PatchDeal(pick, v)),
    fc
      .tuple(fc.nat(), fc.integer({ min: 0, max: 1 }), fc.nat(3))
      .map(([pick, pipeline, stage]) => new MoveDeal(pick, pipeline, stage)),
    fc.option(fc.nat(), { nil: null }).map((pick) => new CreateTask(pick)),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 4 })).map(([pick, times]) => new CompleteTask(pick, times)),
    fc.nat().map((pick) => new ReopenTask(pick))
  ],
  { maxCommands: 25 }
)

for (const storage of storages) {
  describe(`deals and tasks model [${storage.name}]`, () => {
    let kernel: KernelBuilt | undefined
    beforeAll(async () => {
      kernel = await build(storage, (ports) => kernelLayer.pipe(Layer.provide(ports)))
    })
    afterAll(async () => kernel?.close())

    it("keeps every deal in its own pipeline, closes exactly on won/lost and completes each task once", async () => {
      await fc.assert(
        fc.asyncProperty(commands, async (cmds) => {
          const organisation = await newOrganisation(kernel!)
          const model: Model = { deals: [], tasks: [], events: [] }
          const real: Real = { kernel: kernel!, organisation, actor: { keyId: null } }
          await fc.asyncModelRun(() => ({ model, real }), cmds)
        }),
        { numRuns: RUNS, verbose: 1 }
      )
    })
  })
}
