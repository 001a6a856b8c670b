/** Notes in PostgreSQL: written once, never changed or archived. */
import { type Access, type Calls, Notes } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import { iso } from "./internal/rows.js"

interface NoteRow {
  readonly id: Notes.NoteId
  readonly entity_type: string
  readonly entity_id: string
  readonly type: string
  readonly body: string
  readonly call_id: Calls.CallId | null
  readonly author_key_id: Access.KeyId | null
  readonly created_at: Date | string
}

// The columns are written only from the validated enums.
const toNote = (row: NoteRow): Notes.Note => ({
  id: row.id,
  entity_type: row.entity_type as Notes.NoteEntityType,
  entity_id: row.entity_id,
  type: row.type as Notes.NoteType,
  body: row.body,
  call_id: row.call_id,
  author_key_id: row.author_key_id,
  created_at: iso(row.created_at)
})

export const make: Effect.Effect<
  Context.Tag.Service<typeof Notes.NoteRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return Notes.NoteRepository.of({
    insert: (organisationId, note) =>
      sql`INSERT INTO notes (id, organisation_id, entity_type, entity_id, type, body, call_id, author_key_id, created_at)
        VALUES (${note.id}::uuid, ${organisationId}::uuid, ${note.entity_type}, ${note.entity_id}::uuid, ${note.type},
          ${note.body}, ${note.call_id}::uuid, ${note.author_key_id}::uuid, ${note.created_at}::timestamptz)`.pipe(
        Effect.asVoid,
        orStorageError("NoteRepository.insert")
      ),

    list: (organisationId, filter, page) => {
      const conditions = [
        sql`organisation_id = ${organisationId}::uuid`,
        ...(filter.entityType !== undefined ? [sql`entity_type = ${filter.entityType}`] : []),
        ...(filter.entityId !== undefined ? [sql`entity_id = ${filter.entityId}::uuid`] : [])
      ]
      return sql<NoteRow>`SELECT id, entity_type, entity_id, type, body, call_id, author_key_id, created_at
        FROM notes WHERE ${sql.and(conditions)}
        ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
        Effect.map((rows) => rows.map(toNote)),
        orStorageError("NoteRepository.list")
      )
    }
  })
})

export const layer = Layer.effect(Notes.NoteRepository, make)
