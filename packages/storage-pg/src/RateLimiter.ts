import { Access } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { orStorageError } from "./internal/errors.js"
import { executeOn } from "./internal/execute.js"
import { lsn, readAfter, StandbyTag } from "./internal/standby.js"
import { count } from "./internal/storedValues.js"
import rateTakeSorted from "./migrations/0029_rate_take_sorted.js"
import readFences from "./migrations/0031_read_fences.js"
import rateWindowStorage from "./migrations/0032_rate_window_storage.js"

// The window kept in order, a take's cost no longer growing with it; each key's fence for reads
// from a standby; the window stored uncompressed.
export const migrations = {
  "0029_rate_take_sorted": rateTakeSorted,
  "0031_read_fences": readFences,
  "0032_rate_window_storage": rateWindowStorage
}

interface DecisionRow {
  readonly admitted: boolean
  readonly remaining: number
  readonly retry_after_ms: string | number
  readonly access_version: string | null
  readonly read_after?: string | null
}

// Sent as it is (`internal/execute.ts`): every request takes from its budget. The organisation's
// access version rides along: what the key cache's answers are checked against
// (`internal/KeyCache.ts`), in the statement the request sends anyway.
const TAKE = `SELECT t.admitted, t.remaining, t.retry_after_ms,
    (SELECT o.access_version FROM organisations o WHERE o.id = $6::uuid) AS access_version
  FROM crm_rate_take($1::text, $2::bigint, $3::integer, $4::bigint, $5::boolean) t`

// With a standby, the key's fence rides along too, for its reads (`internal/standby.ts`).
const TAKE_FENCED = TAKE.replace(
  "AS access_version",
  `AS access_version,
    (SELECT f.after_lsn::text FROM read_fences f WHERE f.organisation_id = $6::uuid AND f.key_id = $1) AS read_after`
)

// After the request's last commit, so the primary's position is past all of them.
const FENCE = `INSERT INTO read_fences (organisation_id, key_id, after_lsn) VALUES ($1::uuid, $2, pg_current_wal_lsn())
  ON CONFLICT (organisation_id, key_id) DO UPDATE SET after_lsn = greatest(read_fences.after_lsn, excluded.after_lsn)`

/** The window lives in `crm_rate_take` (migrations 0018 and 0029): one call, one round trip, one row lock. */
export const make: Effect.Effect<
  Context.Tag.Service<typeof Access.RateLimiter>,
  never,
  SqlClient.SqlClient
> = Effect.map(Effect.all([SqlClient.SqlClient, Effect.serviceOption(StandbyTag)]), ([sql, standby]) => {
  const execute = executeOn(sql)
  const fenced = Option.isSome(standby)
  const take = (keyId: string, { limit, now, organisationId, spend, windowMs }: TakeRequest) =>
    execute<DecisionRow>(fenced ? TAKE_FENCED : TAKE, [
      keyId,
      Math.floor(now),
      limit,
      Math.floor(windowMs),
      spend,
      organisationId
    ])
  const decision = ([row]: ReadonlyArray<DecisionRow>) => ({
    admitted: row!.admitted,
    remaining: Number(row!.remaining),
    retryAfterMs: count(row!.retry_after_ms),
    // A missing organisation has no keys to serve: any version is newer than a cached one.
    accessVersion: row!.access_version === null ? Number.MAX_SAFE_INTEGER : Number(row!.access_version)
  })
  return Access.RateLimiter.of({
    take: fenced
      ? (keyId, request) =>
          take(keyId, request).pipe(
            Effect.tap(([row]) => FiberRef.set(readAfter, row!.read_after == null ? undefined : lsn(row!.read_after))),
            Effect.map(decision),
            orStorageError("RateLimiter.take")
          )
      : (keyId, request) => take(keyId, request).pipe(Effect.map(decision), orStorageError("RateLimiter.take")),
    wrote: (keyId, organisationId) =>
      fenced
        ? execute(FENCE, [organisationId, keyId]).pipe(Effect.asVoid, orStorageError("RateLimiter.wrote"))
        : Effect.void,
    standby: fenced
  })
})

type TakeRequest = Parameters<Context.Tag.Service<typeof Access.RateLimiter>["take"]>[1]

export const layer = Layer.effect(Access.RateLimiter, make)
