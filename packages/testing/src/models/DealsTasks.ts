/**
 * The reference model of deals and tasks: random sequences of create / patch / move / complete /
 * reopen run through the kernel, each checked against a plain model (stage always in the deal's
 * own pipeline, closed_at exactly when won or lost, exactly one task.completed per completion,
 * the event log equal to the model's).
 */
import fc from "fast-check"
import { CompleteTask } from "./DealsTasks/CompleteTask.js"
import { CreateDeal } from "./DealsTasks/CreateDeal.js"
import { CreateTask } from "./DealsTasks/CreateTask.js"
import { type Model, type Real, SETTINGS, type Services } from "./DealsTasks/Model.js"
import { MoveDeal } from "./DealsTasks/MoveDeal.js"
import { PatchDeal } from "./DealsTasks/PatchDeal.js"
import { ReopenTask } from "./DealsTasks/ReopenTask.js"
import { newOrganisation, type Runner } from "./Runner.js"

export { CompleteTask } from "./DealsTasks/CompleteTask.js"
export { CreateDeal } from "./DealsTasks/CreateDeal.js"
export { CreateTask } from "./DealsTasks/CreateTask.js"
export * from "./DealsTasks/Model.js"
export { MoveDeal } from "./DealsTasks/MoveDeal.js"
export { PatchDeal } from "./DealsTasks/PatchDeal.js"
export { ReopenTask } from "./DealsTasks/ReopenTask.js"

export interface CommandsOptions {
  /** The longest sequence generated (default 25). */
  readonly maxCommands?: number
}

const value = fc.option(fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.constant(1234.5)), { nil: null })

/** Sequences of the model's commands, for `fc.asyncModelRun` (or `run`). */
export const commands = (options: CommandsOptions = {}): fc.Arbitrary<Iterable<fc.AsyncCommand<Model, Real>>> =>
  fc.commands(
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
    { maxCommands: options.maxCommands ?? 25 }
  )

/** The start of one run: a new organisation (with `SETTINGS`) and an empty model. */
export const setup = async (kernel: Runner<Services>): Promise<{ model: Model; real: Real }> => ({
  model: { deals: [], tasks: [], events: [] },
  real: { kernel, organisation: await newOrganisation(kernel, SETTINGS), actor: { keyId: null } }
})

/** One run of `cmds` from `setup`, checked against the model after every command. */
export const run = async (kernel: Runner<Services>, cmds: Iterable<fc.AsyncCommand<Model, Real>>): Promise<void> => {
  const start = await setup(kernel)
  await fc.asyncModelRun(() => start, cmds)
}
