/**
 * The reference models the kernel's own model-based tests run, with their commands: a user's
 * `fc.commands` suite runs them against the kernel on any storage.
 */
export { ModelMismatch } from "./models/Check.js"
export * as DealsTasks from "./models/DealsTasks.js"
export * as Inventory from "./models/Inventory.js"
export * as Invoicing from "./models/Invoicing.js"
export { type ClosableRunner, type Real, type Runner, runner } from "./models/Runner.js"
