import { Mail } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import { type MailRow, mailColumns, mailTable, toMailMessage } from "./internal/rows.js"

export const make: Effect.Effect<Context.Tag.Service<typeof Mail.MailOutbox>, never, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(mailTable.selected)

    return Mail.MailOutbox.of({
      enqueue: (organisationId, message) =>
        sql`INSERT INTO mail_outbox ${mailTable.insert(sql, mailColumns(organisationId, message))}`.pipe(
          Effect.asVoid,
          orStorageError("MailOutbox.enqueue")
        ),

      list: (organisationId, filter, page) =>
        sql<MailRow>`SELECT ${columns} FROM mail_outbox WHERE organisation_id = ${organisationId}::uuid
        ${filter.status === undefined ? sql`` : sql`AND status = ${filter.status}`}
        ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
          Effect.map((rows) => rows.map(toMailMessage)),
          orStorageError("MailOutbox.list")
        ),

      // SKIP LOCKED: workers of other processes claiming at the same moment pass over the rows this
      // one is taking instead of waiting for them, and the lease keeps them away once it commits.
      claimDue: (now, leaseUntil, limit) =>
        sql<MailRow>`UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = ${leaseUntil}::timestamptz
        WHERE (organisation_id, id) IN (
          SELECT organisation_id, id FROM mail_outbox
          WHERE status = 'queued' AND next_attempt_at <= ${now}::timestamptz
          ORDER BY next_attempt_at, id LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING ${columns}`.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({ organisationId: row.organisation_id, message: toMailMessage(row) }))
          ),
          orStorageError("MailOutbox.claimDue")
        ),

      record: (organisationId, message) =>
        sql`UPDATE mail_outbox SET ${mailTable.assignments(sql, {
          status: message.status,
          attempts: message.attempts,
          last_error: message.last_error,
          next_attempt_at: message.next_attempt_at,
          sent_at: message.sent_at
        })}
        WHERE organisation_id = ${organisationId}::uuid AND id = ${message.id}::uuid`.pipe(
          Effect.asVoid,
          orStorageError("MailOutbox.record")
        )
    })
  }
)

export const layer = Layer.effect(Mail.MailOutbox, make)
