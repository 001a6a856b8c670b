/** Form submissions in memory: one organisation's submissions by id. */
import { Forms } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AppendOnly from "./internal/appendOnly.js"
import { instant, type Store } from "./internal/Store.js"

export const formSubmissions = AppendOnly.table<Forms.Submission>("form_submissions")

export const make = (store: Store): Context.Tag.Service<typeof Forms.FormSubmissionRepository> => {
  const rows = AppendOnly.make(store, formSubmissions, "form submission")
  return Forms.FormSubmissionRepository.of({
    insert: rows.insert,
    counts: (organisationId, formId, since) =>
      Effect.map(
        rows.select(organisationId, (row) => row.form_id === formId),
        (submissions) => {
          const from = instant(since)
          const last = submissions.reduce<string | null>(
            (latest, row) => (latest === null || instant(row.created_at) > instant(latest) ? row.created_at : latest),
            null
          )
          return {
            total: submissions.length,
            last_30_days: submissions.filter((row) => instant(row.created_at) >= from).length,
            contacts_created: submissions.filter((row) => row.contact_created).length,
            last_submitted_at: last
          }
        }
      ),
    contactOfVisitor: (organisationId, visitorId) =>
      Effect.map(
        rows.latest(organisationId, (row) => row.visitor_id === visitorId),
        Option.map((row) => ({ contactId: row.contact_id, at: row.created_at }))
      )
  })
}
