import { Access } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import { executeOn } from "./internal/execute.js"
import { count } from "./internal/storedValues.js"

interface DecisionRow {
  readonly admitted: boolean
  readonly remaining: number
  readonly retry_after_ms: string | number
}

// Sent as it is (`internal/execute.ts`): every request takes from its budget.
const TAKE = `SELECT admitted, remaining, retry_after_ms
  FROM crm_rate_take($1::text, $2::bigint, $3::integer, $4::bigint, $5::boolean)`

/** The window lives in `crm_rate_take` (migration 0002): one call, one round trip, one row lock. */
export const make: Effect.Effect<
  Context.Tag.Service<typeof Access.RateLimiter>,
  never,
  SqlClient.SqlClient
> = Effect.map(SqlClient.SqlClient, (sql) => {
  const execute = executeOn(sql)
  return Access.RateLimiter.of({
    take: (keyId, { limit, now, spend, windowMs }) =>
      execute<DecisionRow>(TAKE, [keyId, Math.floor(now), limit, Math.floor(windowMs), spend]).pipe(
        Effect.map(([row]) => ({
          admitted: row.admitted,
          remaining: Number(row.remaining),
          retryAfterMs: count(row.retry_after_ms)
        })),
        orStorageError("RateLimiter.take")
      )
  })
})

export const layer = Layer.effect(Access.RateLimiter, make)
