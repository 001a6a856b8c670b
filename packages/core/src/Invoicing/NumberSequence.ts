import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"

/**
 * Gap-free counters per organisation, series and year. `next` must run inside the unit of work
 * that writes the numbered document: the increment commits or rolls back with it, and concurrent
 * callers of one series wait for each other, so numbers are consecutive and never shared.
 */
export class NumberSequence extends Context.Tag("@crm/core/NumberSequence")<
  NumberSequence,
  {
    readonly next: (organisationId: OrganisationId, series: string, year: number) => Effect.Effect<number, StorageError>
  }
>() {}
