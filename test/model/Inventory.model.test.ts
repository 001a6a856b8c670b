/**
 * The stock-ledger reference model of `@crm/testing` on every store: random sequences of product
 * creation, stocktakes, deltas, documents moving stock (sales, cancellations, receipts, returns)
 * and purchase orders received through their service, each checked against the model (levels as
 * the model says, never below zero, each equal to Σ of its ledger, and refusals exactly when the
 * model predicts them). `MODEL_RUNS` raises the number of runs; a failure prints the seed and
 * path that replay it.
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
  describe(`inventory model [${storage.name}]`, () => {
    let kernel: Built<Models.Inventory.Services> | undefined
    beforeAll(async () => {
      kernel = await build(storage, (ports) =>
        Kernel.layer.pipe(Layer.provide(ports), Layer.provide(Ids.layerSeeded(SEED)))
      )
    })
    afterAll(async () => kernel?.close())

    it("keeps every level equal to Σ ledger, never below zero, refusing exactly when the model says", async () => {
      await fc.assert(
        fc.asyncProperty(Models.Inventory.commands(), (cmds) => Models.Inventory.run(kernel!, cmds)),
        { numRuns: RUNS, seed: SEED, verbose: 1 }
      )
    }, 300_000)
  })
}
