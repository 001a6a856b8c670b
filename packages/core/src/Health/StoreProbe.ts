import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"

/** The store answering at all: a trivial round trip, reading no data, for readiness checks. */
export class StoreProbe extends Context.Tag("@crm/core/StoreProbe")<
  StoreProbe,
  {
    readonly ping: Effect.Effect<void, StorageError>
  }
>() {}
