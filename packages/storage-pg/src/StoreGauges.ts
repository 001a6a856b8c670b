/**
 * The backlogs, one statement each: the pending deliveries and the queued mail through their
 * partial indexes (`WHERE status = ...`), the event log's head through its primary key, one probe per
 * organisation (the key leads with it: `max(id)` over the whole table would read it all). The pool's
 * use is read from the pool itself (`ServerPool`, there on the PostgreSQL server only), without a
 * statement.
 */
import { Health } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { orStorageError } from "./internal/errors.js"
import { ServerPool } from "./internal/serverPool.js"

interface BacklogRow {
  readonly count: number | string
  readonly oldest: Date | string | null
}

const backlogOf = (rows: ReadonlyArray<BacklogRow>): Health.Backlog => {
  const row = rows[0]
  if (row === undefined || row.oldest === null) return { count: 0, oldestAt: null }
  return { count: Number(row.count), oldestAt: new Date(row.oldest).toISOString() }
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof Health.StoreGauges>,
  never,
  SqlClient.SqlClient
> = Effect.map(Effect.all([SqlClient.SqlClient, Effect.serviceOption(ServerPool)]), ([sql, pool]) =>
  Health.StoreGauges.of({
    webhookDeliveries: sql<BacklogRow>`
      SELECT count(*) AS count, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`.pipe(
      Effect.map(backlogOf),
      orStorageError("StoreGauges.webhookDeliveries")
    ),
    mail: sql<BacklogRow>`
      SELECT count(*) AS count, min(created_at) AS oldest FROM mail_outbox WHERE status = 'queued'`.pipe(
      Effect.map(backlogOf),
      orStorageError("StoreGauges.mail")
    ),
    eventsHead: sql<{ readonly head: number | string | bigint | null }>`SELECT max(newest.id) AS head
      FROM organisations o
      CROSS JOIN LATERAL (SELECT max(id) AS id FROM events WHERE organisation_id = o.id) newest`.pipe(
      Effect.map((rows) => BigInt(rows[0]?.head ?? 0)),
      orStorageError("StoreGauges.eventsHead")
    ),
    connections: Effect.sync(() =>
      Option.map(pool, (pool) => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }))
    )
  })
)

export const layer = Layer.effect(Health.StoreGauges, make)
