import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { StandbyStatus } from "./HealthSchemas.js"

/** What readiness asks the store: whether it answers at all, and whether its schema is this build's. */
export class StoreProbe extends Context.Tag("@crm/core/StoreProbe")<
  StoreProbe,
  {
    /** A trivial round trip, reading no data. */
    readonly ping: Effect.Effect<void, StorageError>
    /**
     * The migrations this build knows that the store has not applied, by name. Once none are
     * missing an adapter may remember it and ask nothing more: migrations are never undone.
     */
    readonly missingMigrations: Effect.Effect<ReadonlyArray<string>, StorageError>
    /** How the store's standby stands, as last seen; undefined where it has none. */
    readonly standby: Effect.Effect<StandbyStatus | undefined>
  }
>() {}
