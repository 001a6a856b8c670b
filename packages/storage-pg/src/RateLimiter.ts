import { Access } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import { count } from "./internal/rows.js"

interface DecisionRow {
  readonly admitted: boolean
  readonly remaining: number
  readonly retry_after_ms: string | number
}

/** The window lives in `crm_rate_take` (migration 0002): one call, one round trip, one row lock. */
export const make = Effect.map(SqlClient.SqlClient, (sql) =>
  Access.RateLimiter.of({
    take: (keyId, { limit, now, spend, windowMs }) =>
      sql<DecisionRow>`SELECT admitted, remaining, retry_after_ms
        FROM crm_rate_take(${keyId}::text, ${Math.floor(now)}::bigint, ${limit}::integer, ${Math.floor(windowMs)}::bigint, ${spend}::boolean)`.pipe(
        Effect.map(([row]) => ({
          admitted: row.admitted,
          remaining: Number(row.remaining),
          retryAfterMs: count(row.retry_after_ms)
        })),
        orStorageError("RateLimiter.take")
      )
  })
)

export const layer = Layer.effect(Access.RateLimiter, make)
