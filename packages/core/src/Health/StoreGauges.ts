import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"

/** A queue in the store: how much waits in it, and since when the oldest has waited. */
export interface Backlog {
  readonly count: number
  /** When the oldest waiting item was created; null when none waits. */
  readonly oldestAt: string | null
}

/** The connections of a pool, where the store has one. */
export interface PoolUse {
  /** Connections open, in use or idle. */
  readonly total: number
  readonly idle: number
  /** Statements waiting for a connection. */
  readonly waiting: number
}

/**
 * What the operator's metrics read from the store at a scrape, across every organisation: one
 * cheap statement each (an index scan), never on the path of a request.
 */
export class StoreGauges extends Context.Tag("@crm/core/StoreGauges")<
  StoreGauges,
  {
    /** Webhook deliveries still `pending` (a first attempt or a retry to come). */
    readonly webhookDeliveries: Effect.Effect<Backlog, StorageError>
    /** Mail still `queued` in the outbox. */
    readonly mail: Effect.Effect<Backlog, StorageError>
    /** The id of the newest event in the log; 0 when it is empty. */
    readonly eventsHead: Effect.Effect<bigint, StorageError>
    /** The pool's connections; none for a store without a pool (memory, PGlite's one connection). */
    readonly connections: Effect.Effect<Option.Option<PoolUse>>
  }
>() {}
