/** Forms defined in the organisation settings: submissions create or link a contact and may be leads. */

import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { Contacts } from "./Contacts.js"
import {
  NotFound,
  type PlanRefused,
  type StorageError,
  type SubmissionRefused,
  type ValidationFailed
} from "./Errors.js"
import { EventLog, type NewEvent } from "./Events/EventLog.js"
import * as FormAnswers from "./Forms/FormAnswers.js"
import { type Form, leadProvider } from "./Forms/FormDefinitions.js"
import type { FormId } from "./Forms/FormIds.js"
import { SubmissionId } from "./Forms/FormIds.js"
import { COUNT_WINDOW_DAYS, type FormCounts, type Submission, type SubmissionCreate } from "./Forms/FormSchemas.js"
import { FormSubmissionRepository } from "./Forms/FormSubmissionRepository.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { nowIso } from "./internal/records.js"
import { matchContact } from "./Leads/ContactMatch.js"
import type { Organisation } from "./Organisation.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"

export * as FormAnswers from "./Forms/FormAnswers.js"
export * from "./Forms/FormDefinitions.js"
export * from "./Forms/FormSchemas.js"
export * from "./Forms/FormSettings.js"
export * from "./Forms/FormSubmissionRepository.js"

export class Forms extends Context.Tag("@crm/core/Forms")<
  Forms,
  {
    /**
     * Accepts the answers, creates or links the contact, records the submission and emits
     * `form.submitted` (and `lead.received` for a lead-source form), all in one unit of work.
     */
    readonly submit: (
      organisation: Organisation,
      formId: FormId,
      input: SubmissionCreate,
      actor: Actor
    ) => Effect.Effect<Submission, NotFound | SubmissionRefused | PlanRefused | ValidationFailed | StorageError>
    readonly counts: (organisation: Organisation, formId: FormId) => Effect.Effect<FormCounts, NotFound | StorageError>
  }
>() {}

const DAY_MS = 86_400_000

const formOf = (organisation: Organisation, id: string): Effect.Effect<Form, NotFound> => {
  const form = organisation.settings.forms.find((candidate) => candidate.id === id)
  return form === undefined ? Effect.fail(new NotFound({ detail: "no such form" })) : Effect.succeed(form)
}

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const contacts = yield* Contacts
  const contactRepo = yield* ContactRepository
  const repo = yield* FormSubmissionRepository
  const events = yield* EventLog
  const tx = yield* Transaction
  const match = matchContact(contacts, contactRepo)

  return Forms.of({
    submit: operation("Forms.submit")(function* (organisation, formId, input, actor) {
      const form = yield* formOf(organisation, formId)
      const fields = yield* FormAnswers.check(form, input.fields)
      const details = yield* FormAnswers.contactOf(form, fields)
      const provider = leadProvider(form)
      return yield* tx.run(
        Effect.gen(function* () {
          const contact = yield* match(
            organisation,
            { ...details, source: details.source ?? provider ?? "form" },
            actor
          )
          const now = yield* nowIso
          const submission: Submission = {
            id: brand(SubmissionId, ids.next()),
            form_id: form.id,
            contact_id: contact.contactId,
            contact_created: contact.created,
            fields,
            visitor_id: input.visitor_id ?? null,
            created_at: now
          }
          yield* repo.insert(organisation.id, submission)
          const submitted: NewEvent = {
            event: "form.submitted",
            data: { form_id: form.id, contact_id: contact.contactId, fields }
          }
          const lead: ReadonlyArray<NewEvent> =
            provider === null
              ? []
              : [
                  {
                    event: "lead.received",
                    data: {
                      provider,
                      lead_id: submission.id,
                      form_id: form.id,
                      contact_id: contact.contactId,
                      created: contact.created
                    }
                  }
                ]
          yield* events.append(organisation.id, [submitted, ...lead], now)
          return submission
        })
      )
    }),
    counts: (organisation, formId) =>
      Effect.gen(function* () {
        const form = yield* formOf(organisation, formId)
        const now = yield* nowIso
        const since = new Date(Date.parse(now) - COUNT_WINDOW_DAYS * DAY_MS).toISOString()
        const counts = yield* repo.counts(organisation.id, form.id, since)
        return { form_id: form.id, ...counts }
      })
  })
})

export const layer = Layer.effect(Forms, make)
