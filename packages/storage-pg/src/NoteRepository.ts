/** Notes in PostgreSQL: written once, never changed but for their pin, never archived. */
import { type Access, type Calls, Notes } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { boolean, literal, nullable, type RowOfTable, table, text, timestamp, uuid } from "./internal/columns.js"
import { orStorageError } from "./internal/errors.js"
import notesPinned from "./migrations/0024_notes_pinned.js"

export const migrations = { "0024_notes_pinned": notesPinned }

const noteTable = table("notes", {
  id: uuid<Notes.NoteId>(),
  entity_type: literal(Notes.NoteEntityType),
  entity_id: uuid(),
  type: literal(Notes.NoteType),
  body: text(),
  call_id: nullable(uuid<Calls.CallId>()),
  author_key_id: nullable(uuid<Access.KeyId>()),
  pinned: boolean(),
  created_at: timestamp()
})
type NoteRow = RowOfTable<typeof noteTable>
const toNote = (row: NoteRow): Notes.Note => noteTable.read(row)

export const make: Effect.Effect<
  Context.Tag.Service<typeof Notes.NoteRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(noteTable.selected)

  return Notes.NoteRepository.of({
    insert: (organisationId, note) =>
      sql`INSERT INTO notes ${noteTable.insert(sql, note, { organisation_id: sql`${organisationId}::uuid` })}`.pipe(
        Effect.asVoid,
        orStorageError("NoteRepository.insert")
      ),

    get: (organisationId, id) =>
      sql<NoteRow>`SELECT ${columns} FROM notes
        WHERE organisation_id = ${organisationId}::uuid AND id = ${id}::uuid`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toNote)),
        orStorageError("NoteRepository.get")
      ),

    pin: (organisationId, id, pinned) =>
      sql<NoteRow>`UPDATE notes SET pinned = ${pinned}
        WHERE organisation_id = ${organisationId}::uuid AND id = ${id}::uuid RETURNING ${columns}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toNote)),
        orStorageError("NoteRepository.pin")
      ),

    list: (organisationId, filter, page) => {
      const conditions = [
        sql`organisation_id = ${organisationId}::uuid`,
        ...(filter.entityType !== undefined ? [sql`entity_type = ${filter.entityType}`] : []),
        ...(filter.entityId !== undefined ? [sql`entity_id = ${filter.entityId}::uuid`] : []),
        ...(filter.pinned !== undefined ? [sql`pinned = ${filter.pinned}`] : [])
      ]
      return sql<NoteRow>`SELECT ${columns}
        FROM notes WHERE ${sql.and(conditions)}
        ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
        Effect.map((rows) => rows.map(toNote)),
        orStorageError("NoteRepository.list")
      )
    }
  })
})

export const layer = Layer.effect(Notes.NoteRepository, make)
