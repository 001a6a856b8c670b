import { type Contacts, Leads } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { orStorageError, toStorageError } from "./internal/errors.js"

export const make: Effect.Effect<
  Context.Tag.Service<typeof Leads.LeadRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return Leads.LeadRepository.of({
    // A concurrent claim of the same lead waits on the primary key until the first unit of work
    // ends, then finds its row (or, after a rollback, claims it itself).
    claim: (organisationId, provider, externalId, at) =>
      Effect.gen(function* () {
        const claimed = yield* sql`INSERT INTO leads (organisation_id, provider, external_id, received_at)
          VALUES (${organisationId}::uuid, ${provider}, ${externalId}, ${at}::timestamptz)
          ON CONFLICT DO NOTHING RETURNING 1 AS claimed`
        if (claimed.length > 0) return Option.none()
        const [row] = yield* sql<{
          contact_id: Contacts.ContactId | null
          created: boolean | null
        }>`SELECT contact_id, created
          FROM leads WHERE organisation_id = ${organisationId}::uuid AND provider = ${provider}
          AND external_id = ${externalId}`
        if (row === undefined || row.contact_id === null || row.created === null)
          return yield* Effect.fail(toStorageError("LeadRepository.claim")(`lead ${externalId} was never recorded`))
        return Option.some({
          provider,
          lead_id: externalId,
          form_id: null,
          contact_id: row.contact_id,
          created: row.created
        })
      }).pipe(orStorageError("LeadRepository.claim")),

    record: (organisationId, lead) =>
      sql`UPDATE leads SET contact_id = ${lead.contact_id}::uuid, created = ${lead.created}::boolean
        WHERE organisation_id = ${organisationId}::uuid AND provider = ${lead.provider}
        AND external_id = ${lead.lead_id}`.pipe(Effect.asVoid, orStorageError("LeadRepository.record"))
  })
})

export const layer = Layer.effect(Leads.LeadRepository, make)
