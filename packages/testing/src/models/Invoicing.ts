/**
 * The reference model of invoices and payments: random sequences of create / update / issue /
 * pay / cancel / storno run through the kernel, each checked against a plain model (status as the
 * state machine says, totals priced from the lines, numbers from each series without gap or
 * repeat, payments never above what is outstanding, partial and full payment, refusals exactly
 * when the model predicts them, the event log equal to the model's).
 */
import fc from "fast-check"
import { CancelInvoice } from "./Invoicing/CancelInvoice.js"
import { CreateInvoice } from "./Invoicing/CreateInvoice.js"
import { IssueInvoice } from "./Invoicing/IssueInvoice.js"
import type { Model, Real, Services } from "./Invoicing/Model.js"
import { PayInvoice } from "./Invoicing/PayInvoice.js"
import { StornoInvoice } from "./Invoicing/StornoInvoice.js"
import { UpdateInvoice } from "./Invoicing/UpdateInvoice.js"
import { newOrganisation, type Runner } from "./Runner.js"

export { CancelInvoice } from "./Invoicing/CancelInvoice.js"
export { CreateInvoice } from "./Invoicing/CreateInvoice.js"
export { IssueInvoice } from "./Invoicing/IssueInvoice.js"
export * from "./Invoicing/Model.js"
export { PayInvoice, type Share } from "./Invoicing/PayInvoice.js"
export { StornoInvoice } from "./Invoicing/StornoInvoice.js"
export { UpdateInvoice } from "./Invoicing/UpdateInvoice.js"

export interface CommandsOptions {
  /** The longest sequence generated (default 25). */
  readonly maxCommands?: number
}

const lines = fc.array(
  fc.record({ quantity: fc.integer({ min: 1, max: 5 }), unitPrice: fc.integer({ min: 1, max: 200 }) }),
  {
    minLength: 1,
    maxLength: 3
  }
)

const share = fc.oneof(
  fc.integer({ min: 1, max: 99 }).map((percent) => ({ part: percent / 100 })),
  fc.constant("rest" as const),
  fc.constant("over" as const)
)

/**
 * Sequences of the model's commands, for `fc.asyncModelRun` (or `run`). Creating, issuing and
 * paying are drawn more often than the rest, and sequences are longer than fast-check's default,
 * so that runs reach partly paid, paid and reversed invoices.
 */
export const commands = (options: CommandsOptions = {}): fc.Arbitrary<Iterable<fc.AsyncCommand<Model, Real>>> => {
  const create = lines.map((l) => new CreateInvoice(l))
  const issue = fc.nat().map((pick) => new IssueInvoice(pick))
  const pay = fc.tuple(fc.nat(), share).map(([pick, s]) => new PayInvoice(pick, s))
  return fc.commands(
    [
      create,
      create,
      fc.tuple(fc.nat(), lines).map(([pick, l]) => new UpdateInvoice(pick, l)),
      issue,
      issue,
      pay,
      pay,
      pay,
      fc.nat().map((pick) => new CancelInvoice(pick)),
      fc.nat().map((pick) => new StornoInvoice(pick))
    ],
    { maxCommands: options.maxCommands ?? 25, size: "large" }
  )
}

/** The start of one run: a new organisation and an empty model. */
export const setup = async (kernel: Runner<Services>): Promise<{ model: Model; real: Real }> => ({
  model: { invoices: [], numbered: { normal: 0, storno: 0 }, events: [] },
  real: { kernel, organisation: await newOrganisation(kernel), actor: { keyId: null } }
})

/** One run of `cmds` from `setup`, checked against the model after every command. */
export const run = async (kernel: Runner<Services>, cmds: Iterable<fc.AsyncCommand<Model, Real>>): Promise<void> => {
  const start = await setup(kernel)
  await fc.asyncModelRun(() => start, cmds)
}
