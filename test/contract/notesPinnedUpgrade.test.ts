/**
 * Notes written before they had a pin read back unpinned: on PostgreSQL through migration 0024's
 * column default, in memory through the notes slot reading an older export's entries.
 */
import { Notes, Organisation } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { expect, it } from "vitest"
import { notes } from "../../packages/storage-memory/src/NoteRepository.js"
import notesPinned from "../../packages/storage-pg/src/migrations/0024_notes_pinned.js"
import { pgliteStore } from "../support/storages.js"

const organisationId = Organisation.OrganisationId.parse(crypto.randomUUID())
const written = {
  id: Notes.NoteId.parse(crypto.randomUUID()),
  entity_type: "contact" as const,
  entity_id: crypto.randomUUID(),
  type: "note" as const,
  body: "Written before the pin",
  call_id: null,
  author_key_id: null,
  created_at: "2026-11-28T00:00:00.000Z"
}

it("reads a note stored before migration 0024 as unpinned after it", async () => {
  const read = await Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // The table as it was before 0024 (its indexes go with the column or by name).
      yield* sql`ALTER TABLE notes DROP COLUMN pinned`
      yield* sql`DROP INDEX notes_recent`
      yield* sql`INSERT INTO notes (id, organisation_id, entity_type, entity_id, type, body, created_at)
        VALUES (${written.id}, ${organisationId}, ${written.entity_type}, ${written.entity_id}, ${written.type},
          ${written.body}, ${written.created_at})`
      yield* notesPinned
      return yield* (yield* Notes.NoteRepository).get(organisationId, written.id)
    }).pipe(Effect.provide(pgliteStore()), Effect.scoped)
  )
  expect(read).toEqual(Option.some({ ...written, pinned: false }))
})

it("reads a note of a memory export made before the pin as unpinned", () => {
  const rows = notes.codec.fromEntries([[written.id, written]])
  expect(HashMap.get(rows, written.id)).toEqual(Option.some({ ...written, pinned: false }))
})
