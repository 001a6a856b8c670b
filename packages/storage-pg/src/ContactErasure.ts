/**
 * The copies of a contact's personal data held outside its own row, erased as
 * `Contacts.ContactErasure` rules, inside the caller's transaction. Erasure is rare and touches
 * one person, so its statements favour plainness over round trips; the rules that decide what a
 * payload or a draft's buyer becomes run here in JavaScript, the same functions the memory store runs.
 */
import { Contacts, Invoicing } from "@crm/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { json, textArray } from "./internal/values.js"

interface EventData {
  readonly id: string
  readonly event: string
  readonly data: string
}

interface DraftBuyer {
  readonly id: string
  readonly company_id: string | null
  readonly buyer: string
}

/**
 * `address` is the contact's email unless another live contact holds it now: mail to a mailbox
 * that someone else answers to is theirs too, and stays.
 */
export const eraseCopies = (
  sql: SqlClient.SqlClient,
  organisationId: string,
  contact: Contacts.Contact,
  address: string | null,
  at: string
) =>
  Effect.gen(function* () {
    const id = contact.id
    const changed: Array<boolean> = []
    const touched = (rows: ReadonlyArray<unknown>) => changed.push(rows.length > 0)

    // Events naming the contact, and the webhook bodies that carry them.
    const named = yield* sql<EventData>`SELECT id::text AS id, event, data::text AS data FROM events
      WHERE organisation_id = ${organisationId}::uuid
        AND (data->>'contact_id' = ${id} OR (event LIKE 'contact.%' AND data->>'id' = ${id}))`
    const rewritten = named.flatMap((row) => {
      const data = JSON.parse(row.data) as Record<string, unknown>
      const erased = Contacts.erasePayload(data)
      return erased === data ? [] : [{ id: row.id, data: json(erased) }]
    })
    if (rewritten.length > 0) {
      const ids = textArray(rewritten.map((row) => row.id))
      yield* sql`UPDATE events SET data = v.data::json
        FROM unnest(${ids}::bigint[], ${textArray(rewritten.map((row) => row.data))}::text[]) AS v (id, data)
        WHERE events.organisation_id = ${organisationId}::uuid AND events.id = v.id`
      // The body as `EventLog.append` writes it: JSON.stringify of the envelope as polled.
      yield* sql`UPDATE webhook_deliveries d SET body = '{"id":"' || e.id || '","event":"' || e.event
          || '","data":' || e.data::text || ',"created_at":"'
          || to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}'
        FROM events e
        WHERE d.organisation_id = ${organisationId}::uuid AND e.id = d.event_id AND e.id = ANY (${ids}::bigint[])`
      // A receiver's answer may echo the body.
      yield* sql`UPDATE webhook_attempts SET response_excerpt = NULL
        WHERE response_excerpt IS NOT NULL AND delivery_id IN (SELECT id FROM webhook_deliveries
          WHERE organisation_id = ${organisationId}::uuid AND event_id = ANY (${ids}::bigint[]))`
      changed.push(true)
    }

    if (address !== null) {
      touched(
        yield* sql`DELETE FROM mail_outbox
          WHERE organisation_id = ${organisationId}::uuid AND lower(recipient) = lower(${address}) RETURNING id`
      )
    }
    touched(
      yield* sql`DELETE FROM visits WHERE organisation_id = ${organisationId}::uuid AND contact_id = ${id}::uuid
        RETURNING id`
    )
    touched(
      yield* sql`DELETE FROM notes
        WHERE organisation_id = ${organisationId}::uuid AND entity_type = 'contact' AND entity_id = ${id}::uuid
        RETURNING id`
    )
    touched(
      yield* sql`UPDATE form_submissions SET fields = '{}'::jsonb, visitor_id = NULL
        WHERE organisation_id = ${organisationId}::uuid AND contact_id = ${id}::uuid
          AND (fields <> '{}'::jsonb OR visitor_id IS NOT NULL)
        RETURNING id`
    )
    // A changed record is stamped `at`, so that a sync client following `updated_since` fetches it again.
    touched(
      yield* sql`UPDATE survey_responses SET comment = NULL, updated_at = ${at}::timestamptz
        WHERE organisation_id = ${organisationId}::uuid AND contact_id = ${id}::uuid AND comment IS NOT NULL
        RETURNING id`
    )
    touched(
      yield* sql`UPDATE calls SET from_number = '', to_number = '', recording_url = NULL, transcript = NULL,
          summary = NULL, updated_at = ${at}::timestamptz
        WHERE organisation_id = ${organisationId}::uuid AND contact_id = ${id}::uuid
          AND (from_number <> '' OR to_number <> '' OR recording_url IS NOT NULL OR transcript IS NOT NULL
            OR summary IS NOT NULL)
        RETURNING id`
    )
    touched(
      yield* sql`UPDATE tickets SET subject = '', description = NULL, requester_email = '',
          updated_at = ${at}::timestamptz
        WHERE organisation_id = ${organisationId}::uuid AND contact_id = ${id}::uuid
          AND (subject <> '' OR description IS NOT NULL OR requester_email <> '')
        RETURNING id`
    )
    touched(
      yield* sql`UPDATE bookings SET name = '', email = '', answers = '{}'::jsonb, updated_at = ${at}::timestamptz
        WHERE organisation_id = ${organisationId}::uuid AND contact_id = ${id}::uuid
          AND (name <> '' OR email <> '' OR answers <> '{}'::jsonb)
        RETURNING id`
    )

    const drafts = yield* sql<DraftBuyer>`SELECT id, company_id, buyer::text AS buyer FROM invoices
      WHERE organisation_id = ${organisationId}::uuid AND contact_id = ${id}::uuid AND number IS NULL`
    for (const draft of drafts) {
      const buyer = Invoicing.Buyer.parse(JSON.parse(draft.buyer))
      const erased = Contacts.eraseBuyer({ company_id: draft.company_id, buyer }, contact)
      if (erased.name === buyer.name && erased.email === buyer.email) continue
      yield* sql`UPDATE invoices SET buyer = ${json(erased)}::jsonb, updated_at = ${at}::timestamptz
        WHERE organisation_id = ${organisationId}::uuid AND id = ${draft.id}::uuid`
      changed.push(true)
    }
    const issued = yield* sql<{ id: string }>`SELECT id FROM invoices
      WHERE organisation_id = ${organisationId}::uuid AND contact_id = ${id}::uuid AND number IS NOT NULL
      ORDER BY id`
    const kept: ReadonlyArray<Contacts.ErasureKept> = issued.map((row) => ({
      what: "invoice",
      id: row.id,
      reason: Contacts.ISSUED_INVOICE_REASON
    }))
    return { changed: changed.includes(true), kept }
  })
