/**
 * The authorization server's records in PostgreSQL (`Access.OAuthStore`, table `oauth_records` of
 * migration `0026_oauth`), shared by every process on the database. Each call is one statement on
 * the caller's connection, so inside a unit of work it commits or rolls back with it.
 */
import { Access, Errors, Wire } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { json, nullable, type RowOfTable, table, text, timestamp } from "./internal/columns.js"
import { orStorageError } from "./internal/errors.js"
import { purgeBefore } from "./internal/purge.js"
import oauth from "./migrations/0026_oauth.js"

export const migrations = { "0026_oauth": oauth }

const recordTable = table("oauth_records", {
  model: text(),
  id: text(),
  payload: json(Wire.Custom),
  grant_id: nullable(text()),
  uid: nullable(text()),
  user_code: nullable(text()),
  expires_at: nullable(timestamp()),
  consumed_at: nullable(timestamp())
})
type RecordRow = RowOfTable<typeof recordTable>

export const make: Effect.Effect<
  Context.Tag.Service<typeof Access.OAuthStore>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(recordTable.selected)
  const one = (rows: ReadonlyArray<RecordRow>) => Option.map(Option.fromNullable(rows[0]), recordTable.read)
  const live = (now: string) => sql`(expires_at IS NULL OR expires_at > ${now}::timestamptz)`

  return Access.OAuthStore.of({
    upsert: (record) =>
      sql`INSERT INTO oauth_records ${recordTable.insert(sql, record)}
          ON CONFLICT (model, id) DO UPDATE SET (payload, grant_id, uid, user_code, expires_at, consumed_at) =
            (EXCLUDED.payload, EXCLUDED.grant_id, EXCLUDED.uid, EXCLUDED.user_code, EXCLUDED.expires_at,
              EXCLUDED.consumed_at)`.pipe(Effect.asVoid, orStorageError("OAuthStore.upsert")),

    find: (model, id, now) =>
      sql<RecordRow>`SELECT ${columns} FROM oauth_records
          WHERE model = ${model} AND id = ${id} AND ${live(now)}`.pipe(
        Effect.map(one),
        orStorageError("OAuthStore.find")
      ),

    findByUid: (model, uid, now) =>
      sql<RecordRow>`SELECT ${columns} FROM oauth_records
          WHERE model = ${model} AND uid = ${uid} AND ${live(now)} LIMIT 1`.pipe(
        Effect.map(one),
        orStorageError("OAuthStore.findByUid")
      ),

    findByUserCode: (model, userCode, now) =>
      sql<RecordRow>`SELECT ${columns} FROM oauth_records
          WHERE model = ${model} AND user_code = ${userCode} AND ${live(now)} LIMIT 1`.pipe(
        Effect.map(one),
        orStorageError("OAuthStore.findByUserCode")
      ),

    consume: (model, id, at) =>
      sql`UPDATE oauth_records SET consumed_at = ${at}::timestamptz
          WHERE model = ${model} AND id = ${id} AND consumed_at IS NULL`.pipe(
        Effect.asVoid,
        orStorageError("OAuthStore.consume")
      ),

    destroy: (model, id) =>
      sql`DELETE FROM oauth_records WHERE model = ${model} AND id = ${id}`.pipe(
        Effect.asVoid,
        orStorageError("OAuthStore.destroy")
      ),

    revokeGrant: (grantId) =>
      sql`DELETE FROM oauth_records WHERE grant_id = ${grantId} OR (model = 'Grant' AND id = ${grantId})`.pipe(
        Effect.asVoid,
        orStorageError("OAuthStore.revokeGrant")
      ),

    // The insert of a concurrent first caller, in this process or another, waits for the one that
    // wins and then does nothing; the read after it, a statement of its own, sees the winner.
    claim: (model, id, payload) =>
      sql<RecordRow>`INSERT INTO oauth_records ${recordTable.insert(sql, Access.bareRecord(model, id, payload))} ON CONFLICT (model, id) DO NOTHING RETURNING ${columns}`.pipe(
        Effect.flatMap((inserted) =>
          inserted.length > 0
            ? Effect.succeed(inserted)
            : sql<RecordRow>`SELECT ${columns} FROM oauth_records WHERE model = ${model} AND id = ${id}`
        ),
        Effect.flatMap((rows) =>
          Option.match(one(rows), {
            onNone: () => Effect.fail(new Errors.StorageError({ message: `${model} ${id} was not stored` })),
            onSome: (record) => Effect.succeed(record.payload)
          })
        ),
        orStorageError("OAuthStore.claim")
      ),

    purge: (before) => purgeBefore(sql, "oauth_records", "expires_at", before, "OAuthStore.purge")
  })
})

export const layer = Layer.effect(Access.OAuthStore, make)
