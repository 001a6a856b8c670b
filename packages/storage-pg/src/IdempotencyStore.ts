import { Errors, Idempotency } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { orStorageError } from "./internal/errors.js"
import { executeOn } from "./internal/execute.js"
import { purgeBefore } from "./internal/purge.js"
import { type IdempotencyRow, idempotencyTable, toIdempotencyRecord } from "./internal/rows.js"

// A different seed from the event log's, so the two lock families do not share a hash space.
const LOCK_SEED = "1917"

// Every request with an Idempotency-Key runs these, so they are sent as they are
// (`internal/execute.ts`).
//
// The lock and the lookup are one statement, one round trip: always one row (the key is unique),
// the lock taken once. Its snapshot is taken before the lock, so a request that commits in between
// goes unseen; `SAVE` then meets its live record, stores nothing and answers no row, and the
// caller claims again (see `IdempotencyStore` in core).
const CLAIM = `SELECT pg_try_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, ${LOCK_SEED}::bigint))
    AS locked, i.fingerprint, i.payload, i.created_at
  FROM (VALUES (1)) AS one
  LEFT JOIN idempotency i ON i.key_id = $1 AND i.idem_key = $2 AND i.created_at >= $3::timestamptz`
const SAVE = `INSERT INTO idempotency (key_id, idem_key, ${idempotencyTable.list})
  VALUES ($1, $2, ${idempotencyTable.placeholders(3)})
  ON CONFLICT (key_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, payload = EXCLUDED.payload,
    created_at = EXCLUDED.created_at
    WHERE idempotency.created_at < $${3 + idempotencyTable.width}::timestamptz
  RETURNING 1 AS saved`

/** The lock's answer, and the stored record's columns (all null when there is none). */
type ClaimRow = { readonly locked: boolean } & (IdempotencyRow | { readonly fingerprint: null })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Idempotency.IdempotencyStore>,
  never,
  SqlClient.SqlClient
> = Effect.map(SqlClient.SqlClient, (sql) => {
  const execute = executeOn(sql)
  return Idempotency.IdempotencyStore.of({
    // A transaction-scoped lock: released by COMMIT or ROLLBACK, so a crashed request never
    // leaves its key stuck. `try` because a duplicate should hear "in progress" now, not queue.
    // The key id is a uuid, so the separator cannot make two scopes collide.
    claim: ({ idempotencyKey, keyId }, notBefore) =>
      execute<ClaimRow>(CLAIM, [keyId, idempotencyKey, notBefore]).pipe(
        orStorageError("IdempotencyStore.claim"),
        Effect.flatMap(([row]) => {
          if (!row.locked) {
            return new Errors.IdempotencyInProgress({
              detail: "a request with this Idempotency-Key is still being processed"
            })
          }
          return Effect.succeed(row.fingerprint === null ? Option.none() : Option.some(toIdempotencyRecord(row)))
        })
      ),

    // An expired record under the same key is replaced: the key is free again after the window.
    save: ({ idempotencyKey, keyId }, record, notBefore) =>
      execute(SAVE, [keyId, idempotencyKey, ...idempotencyTable.values(record), notBefore]).pipe(
        Effect.map((rows) => rows.length > 0),
        orStorageError("IdempotencyStore.save")
      ),

    purgeBefore: (at) => purgeBefore(sql, "idempotency", "created_at", at, "IdempotencyStore.purgeBefore")
  })
})

export const layer = Layer.effect(Idempotency.IdempotencyStore, make)
