/**
 * The deals-and-tasks reference model of `@crm/testing` on every store: random sequences of
 * create / patch / move / complete / reopen, each checked against the model (stage always in the
 * deal's own pipeline, closed_at exactly when won or lost, exactly one task.completed per
 * completion, the event log equal to the model's). `MODEL_RUNS` raises the number of runs for a
 * longer search outside `npm test`; a failure prints the seed and path that replay it.
 */
import { Ids, Kernel } from "@crm/core"
import { Models } from "@crm/testing"
import * as Layer from "effect/Layer"
import fc from "fast-check"
import { afterAll, beforeAll, describe, it } from "vitest"
import { modelSeed } from "../support/modelSeed.js"
import { type Built, build } from "../support/ports.js"
import { storages } from "../support/storages.js"

const RUNS = Number(process.env.MODEL_RUNS ?? 15)
const SEED = modelSeed()

for (const storage of storages) {
  describe(`deals and tasks model [${storage.name}]`, () => {
    let kernel: Built<Models.DealsTasks.Services> | undefined
    beforeAll(async () => {
      kernel = await build(storage, (ports) =>
        Kernel.layer.pipe(Layer.provide(ports), Layer.provide(Ids.layerSeeded(SEED)))
      )
    })
    afterAll(async () => kernel?.close())

    it("keeps every deal in its own pipeline, closes exactly on won/lost and completes each task once", async () => {
      await fc.assert(
        fc.asyncProperty(Models.DealsTasks.commands(), (cmds) => Models.DealsTasks.run(kernel!, cmds)),
        { numRuns: RUNS, seed: SEED, verbose: 1 }
      )
    })
  })
}
