/**
 * The reference model of the stock ledger: random sequences of product creation, stocktakes,
 * deltas, documents moving stock (sales, cancellations, receipts, returns) and purchase orders
 * received through their service, each checked against a plain model (levels as the model says,
 * never below zero, each equal to Σ of its ledger, and refusals exactly when the model predicts them).
 */
import fc from "fast-check"
import { CreateProduct } from "./Inventory/CreateProduct.js"
import { DocumentStock } from "./Inventory/DocumentStock.js"
import type { Model, Real, Services } from "./Inventory/Model.js"
import { MoveStock } from "./Inventory/MoveStock.js"
import { ReceivePurchaseOrder } from "./Inventory/ReceivePurchaseOrder.js"
import { newOrganisation, type Runner } from "./Runner.js"

export { CreateProduct } from "./Inventory/CreateProduct.js"
export { DocumentStock, type Line } from "./Inventory/DocumentStock.js"
export * from "./Inventory/Model.js"
export { MoveStock, type Request } from "./Inventory/MoveStock.js"
export { ReceivePurchaseOrder } from "./Inventory/ReceivePurchaseOrder.js"

export interface CommandsOptions {
  /** The longest sequence generated (default 25). */
  readonly maxCommands?: number
}

const request = fc.oneof(
  fc
    .integer({ min: -6, max: 6 })
    .filter((n) => n !== 0)
    .map((delta) => ({ delta })),
  fc.option(fc.nat(8), { nil: null }).map((count) => ({ count }))
)

const line = fc.record({ product: fc.nat(), variant: fc.nat(), quantity: fc.integer({ min: 1, max: 4 }) })

/** Sequences of the model's commands, for `fc.asyncModelRun` (or `run`). */
export const commands = (options: CommandsOptions = {}): fc.Arbitrary<Iterable<fc.AsyncCommand<Model, Real>>> =>
  fc.commands(
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
    { maxCommands: options.maxCommands ?? 25 }
  )

/** The start of one run: a new organisation and an empty model. */
export const setup = async (kernel: Runner<Services>): Promise<{ model: Model; real: Real }> => ({
  model: { products: [] },
  real: { kernel, organisation: await newOrganisation(kernel), actor: { keyId: null } }
})

/** One run of `cmds` from `setup`, checked against the model after every command. */
export const run = async (kernel: Runner<Services>, cmds: Iterable<fc.AsyncCommand<Model, Real>>): Promise<void> => {
  const start = await setup(kernel)
  await fc.asyncModelRun(() => start, cmds)
}
