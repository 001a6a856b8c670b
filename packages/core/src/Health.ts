/**
 * Whether this process can serve: the answer a load balancer or an orchestrator asks for before
 * sending it requests. Ready means the store answers and has every migration this build knows; a
 * process whose store does not is alive but should be sent nothing until it does.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import { NotMigrated, type StorageError } from "./Errors.js"
import type { HealthStatus } from "./Health/HealthSchemas.js"
import { type Backlog, type PoolUse, StoreGauges } from "./Health/StoreGauges.js"
import { StoreProbe } from "./Health/StoreProbe.js"

export * from "./Health/HealthSchemas.js"
export * from "./Health/StoreGauges.js"
export * from "./Health/StoreProbe.js"

/** What liveness and readiness answer: liveness asks nothing, so it is answered before the store is open too. */
export const OK: HealthStatus = { status: "ok" }

/** The store's side of the operator's metrics, read at a scrape. */
export interface Gauges {
  readonly webhookDeliveries: Backlog
  readonly mail: Backlog
  readonly eventsHead: bigint
  readonly connections: Option.Option<PoolUse>
}

export class Health extends Context.Tag("@crm/core/Health")<
  Health,
  {
    /**
     * Fails with the store's error (`StorageUnavailable` when it cannot be reached), or with
     * `NotMigrated` while the store lacks a migration of this build.
     */
    readonly ready: Effect.Effect<HealthStatus, StorageError | NotMigrated>
    /** The queues, the event log's head and the pool, for the metrics: a few cheap statements. */
    readonly gauges: Effect.Effect<Gauges, StorageError>
  }
>() {}

export const make = Effect.map(Effect.all([StoreProbe, StoreGauges]), ([probe, gauges]) =>
  Health.of({
    // The migrations first: a store that lacks one answered that question, and is not ready.
    ready: Effect.flatMap(
      probe.missingMigrations,
      (missing): Effect.Effect<HealthStatus, StorageError | NotMigrated> =>
        missing.length > 0
          ? Effect.fail(new NotMigrated({ missing }))
          : Effect.zipRight(
              probe.ping,
              Effect.map(probe.standby, (standby): HealthStatus => (standby === undefined ? OK : { ...OK, standby }))
            )
    ),
    gauges: Effect.all({
      webhookDeliveries: gauges.webhookDeliveries,
      mail: gauges.mail,
      eventsHead: gauges.eventsHead,
      connections: gauges.connections
    })
  })
)

export const layer = Layer.effect(Health, make)
