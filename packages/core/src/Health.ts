/**
 * Whether this process can serve: the answer a load balancer or an orchestrator asks for before
 * sending it requests. Ready means the store answers and has every migration this build knows; a
 * process whose store does not is alive but should be sent nothing until it does.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { NotMigrated, type StorageError } from "./Errors.js"
import type { HealthStatus } from "./Health/HealthSchemas.js"
import { StoreProbe } from "./Health/StoreProbe.js"

export * from "./Health/HealthSchemas.js"
export * from "./Health/StoreProbe.js"

const OK: HealthStatus = { status: "ok" }

export class Health extends Context.Tag("@crm/core/Health")<
  Health,
  {
    /** The process is up and serving requests: nothing else is asked, so it never fails. */
    readonly live: Effect.Effect<HealthStatus>
    /**
     * Fails with the store's error (`StorageUnavailable` when it cannot be reached), or with
     * `NotMigrated` while the store lacks a migration of this build.
     */
    readonly ready: Effect.Effect<HealthStatus, StorageError | NotMigrated>
  }
>() {}

export const make = Effect.map(StoreProbe, (probe) =>
  Health.of({
    live: Effect.succeed(OK),
    // The migrations first: a store that lacks one answered that question, and is not ready.
    ready: Effect.flatMap(
      probe.missingMigrations,
      (missing): Effect.Effect<HealthStatus, StorageError | NotMigrated> =>
        missing.length > 0 ? Effect.fail(new NotMigrated({ missing })) : Effect.as(probe.ping, OK)
    )
  })
)

export const layer = Layer.effect(Health, make)
