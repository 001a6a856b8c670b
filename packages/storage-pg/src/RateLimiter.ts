import { Access } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import { executeOn } from "./internal/execute.js"
import { count } from "./internal/storedValues.js"
import rateTakeSorted from "./migrations/0029_rate_take_sorted.js"

// The window kept in order, a take's cost no longer growing with it.
export const migrations = { "0029_rate_take_sorted": rateTakeSorted }

interface DecisionRow {
  readonly admitted: boolean
  readonly remaining: number
  readonly retry_after_ms: string | number
  readonly access_version: string | null
}

// Sent as it is (`internal/execute.ts`): every request takes from its budget. The organisation's
// access version rides along: what the key cache's answers are checked against
// (`internal/KeyCache.ts`), in the statement the request sends anyway.
const TAKE = `SELECT t.admitted, t.remaining, t.retry_after_ms,
    (SELECT o.access_version FROM organisations o WHERE o.id = $6::uuid) AS access_version
  FROM crm_rate_take($1::text, $2::bigint, $3::integer, $4::bigint, $5::boolean) t`

/** The window lives in `crm_rate_take` (migrations 0018 and 0029): one call, one round trip, one row lock. */
export const make: Effect.Effect<
  Context.Tag.Service<typeof Access.RateLimiter>,
  never,
  SqlClient.SqlClient
> = Effect.map(SqlClient.SqlClient, (sql) => {
  const execute = executeOn(sql)
  return Access.RateLimiter.of({
    take: (keyId, { limit, now, organisationId, spend, windowMs }) =>
      execute<DecisionRow>(TAKE, [keyId, Math.floor(now), limit, Math.floor(windowMs), spend, organisationId]).pipe(
        Effect.map(([row]) => ({
          admitted: row.admitted,
          remaining: Number(row.remaining),
          retryAfterMs: count(row.retry_after_ms),
          // A missing organisation has no keys to serve: any version is newer than a cached one.
          accessVersion: row.access_version === null ? Number.MAX_SAFE_INTEGER : Number(row.access_version)
        })),
        orStorageError("RateLimiter.take")
      )
  })
})

export const layer = Layer.effect(Access.RateLimiter, make)
