/**
 * The invoices-and-payments reference model of `@crm/testing` on every store: random sequences of
 * create / update / issue / pay / cancel / storno, each checked against the model (status as the
 * state machine says, totals from the lines, gap-free numbers per series, partial and full
 * payment, overpayment refused, refusals exactly when the model predicts them, the event log equal
 * to the model's). `MODEL_RUNS` raises the number of runs; a failure prints the seed and path that
 * replay it.
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
  describe(`invoicing model [${storage.name}]`, () => {
    let kernel: Built<Models.Invoicing.Services> | undefined
    beforeAll(async () => {
      kernel = await build(storage, (ports) =>
        Kernel.layer.pipe(Layer.provide(ports), Layer.provide(Ids.layerSeeded(SEED)))
      )
    })
    afterAll(async () => kernel?.close())

    it("numbers, prices, takes payments and reverses invoices exactly as the model says", async () => {
      await fc.assert(
        fc.asyncProperty(Models.Invoicing.commands(), (cmds) => Models.Invoicing.run(kernel!, cmds)),
        { numRuns: RUNS, seed: SEED, verbose: 1 }
      )
    }, 300_000)
  })
}
