import { type Contacts, Forms } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { orStorageError } from "./internal/errors.js"
import { type FormCountsRow, formSubmissionTable, toFormCounts } from "./internal/recordRows.js"
import { iso } from "./internal/storedValues.js"

export const make: Effect.Effect<
  Context.Tag.Service<typeof Forms.FormSubmissionRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return Forms.FormSubmissionRepository.of({
    insert: (organisationId, submission) =>
      sql`INSERT INTO form_submissions ${formSubmissionTable.insert(sql, submission, {
        organisation_id: sql`${organisationId}::uuid`
      })}`.pipe(Effect.asVoid, orStorageError("FormSubmissionRepository.insert")),

    counts: (organisationId, formId, since) =>
      sql<FormCountsRow>`SELECT count(*) AS total,
          count(*) FILTER (WHERE created_at >= ${since}::timestamptz) AS recent,
          count(*) FILTER (WHERE contact_created) AS created,
          max(created_at) AS last_submitted_at
        FROM form_submissions WHERE organisation_id = ${organisationId}::uuid AND form_id = ${formId}::uuid`.pipe(
        Effect.map(([row]) => toFormCounts(row!)),
        orStorageError("FormSubmissionRepository.counts")
      ),

    contactOfVisitor: (organisationId, visitorId) =>
      sql<{
        contact_id: Contacts.ContactId
        created_at: Date | string
      }>`SELECT contact_id, created_at FROM form_submissions
        WHERE organisation_id = ${organisationId}::uuid AND visitor_id = ${visitorId}
        ORDER BY created_at DESC, id DESC LIMIT 1`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({ contactId: row.contact_id, at: iso(row.created_at) }))
        ),
        orStorageError("FormSubmissionRepository.contactOfVisitor")
      )
  })
})

export const layer = Layer.effect(Forms.FormSubmissionRepository, make)
