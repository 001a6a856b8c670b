import { type Contacts, Visits } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { orStorageError } from "./internal/errors.js"
import { visitTable } from "./internal/recordRows.js"
import { iso } from "./internal/storedValues.js"

export const make: Effect.Effect<
  Context.Tag.Service<typeof Visits.VisitRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return Visits.VisitRepository.of({
    insert: (organisationId, visit) =>
      sql`INSERT INTO visits ${visitTable.insert(sql, visit, { organisation_id: sql`${organisationId}::uuid` })}`.pipe(
        Effect.asVoid,
        orStorageError("VisitRepository.insert")
      ),

    contactOfVisitor: (organisationId, visitorId) =>
      sql<{ contact_id: Contacts.ContactId; created_at: Date | string }>`SELECT contact_id, created_at FROM visits
        WHERE organisation_id = ${organisationId}::uuid AND visitor_id = ${visitorId} AND contact_id IS NOT NULL
        ORDER BY created_at DESC, id DESC LIMIT 1`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({ contactId: row.contact_id, at: iso(row.created_at) }))
        ),
        orStorageError("VisitRepository.contactOfVisitor")
      )
  })
})

export const layer = Layer.effect(Visits.VisitRepository, make)
