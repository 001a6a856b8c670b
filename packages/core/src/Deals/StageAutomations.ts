/**
 * Stage-entry automations: a move publishes here, inside its own unit of work, so whatever a
 * consumer writes commits or rolls back with the move. The kernel's own consumer creates the
 * stage's playbook tasks; an embedder can provide its own layer instead. The tasks a consumer
 * creates are the move's answer too, so that a caller learns them without reading them back.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { KeyId } from "../Access/KeyIds.js"
import type { StorageError, ValidationFailed } from "../Errors.js"
import type { Organisation } from "../Organisation.js"
import type { Task } from "../Tasks/TaskSchemas.js"
import type { Deal } from "./DealSchemas.js"
import type { Pipeline, Stage } from "./PipelineSchemas.js"

export interface StageEntry {
  readonly organisation: Organisation
  readonly deal: Deal
  readonly pipeline: Pipeline
  readonly from: Stage | undefined
  readonly stage: Stage
  readonly at: string
  readonly keyId: KeyId | null
}

export class StageAutomations extends Context.Tag("@crm/core/StageAutomations")<
  StageAutomations,
  {
    readonly entered: (entry: StageEntry) => Effect.Effect<ReadonlyArray<Task>, StorageError | ValidationFailed>
  }
>() {}
