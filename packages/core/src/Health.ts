/**
 * Whether this process can serve: the answer a load balancer or an orchestrator asks for before
 * sending it requests. Ready means the store answers; a process whose store does not is alive
 * but should be sent nothing until it does.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { StorageError } from "./Errors.js"
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
    /** Fails with the store's error (`StorageUnavailable` when it cannot be reached) when not ready. */
    readonly ready: Effect.Effect<HealthStatus, StorageError>
  }
>() {}

export const make = Effect.map(StoreProbe, (probe) =>
  Health.of({ live: Effect.succeed(OK), ready: Effect.as(probe.ping, OK) })
)

export const layer = Layer.effect(Health, make)
