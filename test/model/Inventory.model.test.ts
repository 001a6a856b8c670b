/**
 * Model-based test of the stock ledger through the kernel, on every store: random sequences of
 * product creation, stocktakes, deltas, documents moving stock (sales, cancellations, receipts,
 * returns) and purchase orders received through their service, each checked against a plain
 * model (levels as the model says, never below zero, each equal to Σ of its ledger, and refusals
 * exactly when the model predicts them). `MODEL_RUNS` raises the number of runs.
 */
import * as Layer from "effect/Layer"
import fc from "fast-check"
import { afterAll, beforeAll, describe, it } from "vitest"
import { build } from "../support/ports.js"
import { storages } from "../support/storages.js"
import { CreateProduct } from "./inventory/CreateProduct.js"
import { DocumentStock } from "./inventory/DocumentStock.js"
import { type KernelBuilt, kernelLayer, type Model, newOrganisation, type Real } from "./inventory/Model.js"
import { MoveStock } from "./inventory/MoveStock.js"
import { ReceivePurchaseOrder } from "./inventory/ReceivePurchaseOrder.js"

const RUNS = Number(process.env.MODEL_RUNS ?? 15)

const request = fc.oneof(
  fc
    .integer({ min: -6, max: 6 })
    .filter((n) => n !== 0)
    .map((delta) => ({ delta })),
  fc.option(fc.nat(8), { nil: null }).map((count) => ({ count }))
)

const line = fc.record({ product: fc.nat(), variant: fc.nat(), quantity: fc.integer({ min: 1, max: 4 }) })

const commands = fc.commands(
  [
    fc.boolean().map((withVariants) => new CreateProduct(withVariants)),
    fc.tuple(fc.nat(), fc.nat(), request).map(([product, variant, r]) => new MoveStock(product, variant, r)),
    fc
      .tuple(
        fc.constantFrom("sale" as const, "cancel" as const, "receipt" as const, "return" as const),
        fc.array(line, { minLength: 1, maxLength: 3 })
      )
      .map(([kind, lines]) => new DocumentStock(kind, lines)),
    fc
      .tuple(fc.array(line, { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(([lines, split]) => new ReceivePurchaseOrder(lines, split))
  ],
  { maxCommands: 25 }
)

for (const storage of storages) {
  describe(`inventory model [${storage.name}]`, () => {
    let kernel: KernelBuilt | undefined
    beforeAll(async () => {
      kernel = await build(storage, (ports) => kernelLayer.pipe(Layer.provide(ports)))
    })
    afterAll(async () => kernel?.close())

    it("keeps every level equal to Σ ledger, never below zero, refusing exactly when the model says", async () => {
      await fc.assert(
        fc.asyncProperty(commands, async (cmds) => {
          const organisation = await newOrganisation(kernel!)
          const model: Model = { products: [] }
          const real: Real = { kernel: kernel!, organisation, actor: { keyId: null } }
          await fc.asyncModelRun(() => ({ model, real }), cmds)
        }),
        { numRuns: RUNS, verbose: 1 }
      )
    }, 300_000)
  })
}
