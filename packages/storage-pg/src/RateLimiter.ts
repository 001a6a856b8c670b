import { Access } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
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

// A missing organisation has no keys to serve: any version is newer than a cached one.
const versionOf = (version: string | null | undefined): number =>
  version == null ? Number.MAX_SAFE_INTEGER : Number(version)

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
    accessVersion: versionOf(row!.access_version)
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

const LOAD = "SELECT key_id, to_json(hits) AS hits FROM rate_windows"

const SAVE = `INSERT INTO rate_windows (key_id, hits)
  SELECT w.key, ARRAY(SELECT jsonb_array_elements_text(w.value)::bigint) FROM jsonb_each($1::jsonb) AS w`

/**
 * The embedded store's limiter (PGlite). One process at a time holds its data directory
 * (`DataDirLock`), so the windows that process keeps in memory are exact and shared by everything
 * that uses the store, and a take writes nothing: `crm_rate_take`'s row write was the costliest
 * statement of a read on PGlite (docs/benchmarks.md, issue 38's sixth pass).
 *
 * Nor does a take read the organisation's access version, as the server's does: every change of
 * an organisation's keys or settings is made by this process's `AccessRepository`, which raises
 * its own key cache as it makes it, and emptying the store forgets the cache (`Emptying.ts`). So
 * the cache's answers are never stale and the decision carries no version (`RateDecision`): a read
 * is one statement, not two: 16-28 % more requests a second on `GET /contacts/{id}` and `/events`
 * pinned to one core (docs/benchmarks.md, issue 38's eighth pass). A change made in SQL by hand,
 * past the `AccessRepository`, applies within the cache's `maxAgeMs`.
 *
 * The windows are read from `rate_windows` when the store opens and written back when it closes,
 * so a restart refills no key's budget; a process that dies forgets at most one window's takes.
 * A key unused for a whole window is forgotten, so memory follows the keys in use.
 */
export const makeInProcess: Effect.Effect<
  Context.Tag.Service<typeof Access.RateLimiter>,
  SqlError,
  SqlClient.SqlClient | Scope.Scope
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const windows = new Map<string, Array<number>>()
  for (const row of yield* sql.unsafe<{ key_id: string; hits: Array<number> }>(LOAD)) {
    if (row.hits.length > 0) windows.set(row.key_id, row.hits)
  }
  yield* Effect.addFinalizer(() =>
    sql
      .withTransaction(
        Effect.zipRight(
          sql.unsafe("DELETE FROM rate_windows"),
          sql.unsafe(SAVE, [JSON.stringify(Object.fromEntries(windows))])
        )
      )
      .pipe(Effect.catchAllCause((cause) => Effect.logWarning("the rate windows were not saved", cause)))
  )
  let sweptAt = 0
  const sweep = (now: number, windowMs: number) => {
    if (now - sweptAt < windowMs) return
    sweptAt = now
    for (const [keyId, times] of windows)
      if (times.length === 0 || times[times.length - 1]! <= now - windowMs) windows.delete(keyId)
  }
  const take = (keyId: string, request: TakeRequest): Access.RateDecision => {
    sweep(request.now, request.windowMs)
    const times = windows.get(keyId) ?? []
    const { decision, expired, insertAt } = Access.takeFrom(times, request)
    if (expired > 0) times.splice(0, expired)
    if (insertAt !== undefined) {
      if (insertAt === times.length) times.push(request.now)
      else times.splice(insertAt, 0, request.now)
      if (times.length === 1) windows.set(keyId, times)
    }
    return decision
  }
  return Access.RateLimiter.of({
    take: (keyId, request) => Effect.sync(() => take(keyId, request)),
    wrote: () => Effect.void,
    standby: false
  })
})

export const layerInProcess = Layer.scoped(Access.RateLimiter, makeInProcess)
