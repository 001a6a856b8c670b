/**
 * Leads arriving from external providers: each creates or links its contact and emits
 * `lead.received`. Providers deliver again when unsure; a lead already received (same provider
 * and id) answers what it answered the first time and changes nothing.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { Contacts } from "./Contacts.js"
import type { PlanRefused, StorageError, ValidationFailed } from "./Errors.js"
import { EventLog } from "./Events/EventLog.js"
import { operation } from "./internal/operation.js"
import { nowIso } from "./internal/records.js"
import { matchContact } from "./Leads/ContactMatch.js"
import { LeadRepository } from "./Leads/LeadRepository.js"
import type { LeadInput, LeadReceived } from "./Leads/LeadSchemas.js"
import type { Organisation } from "./Organisation.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"

export * from "./Leads/LeadRepository.js"
export * from "./Leads/LeadSchemas.js"

export class Leads extends Context.Tag("@crm/core/Leads")<
  Leads,
  {
    /** Creates or links the contact (by email) and emits `lead.received`, in one unit of work; once per lead. */
    readonly receive: (
      organisation: Organisation,
      lead: LeadInput,
      actor: Actor
    ) => Effect.Effect<LeadReceived, PlanRefused | ValidationFailed | StorageError>
  }
>() {}

export const make = Effect.gen(function* () {
  const match = matchContact(yield* Contacts, yield* ContactRepository)
  const repo = yield* LeadRepository
  const events = yield* EventLog
  const tx = yield* Transaction

  return Leads.of({
    receive: operation("Leads.receive")((organisation, lead, actor) =>
      tx.run(
        Effect.gen(function* () {
          const now = yield* nowIso
          const previous = yield* repo.claim(organisation.id, lead.provider, lead.external_id, now)
          if (Option.isSome(previous)) return previous.value
          const contact = yield* match(
            organisation,
            {
              ...(lead.first_name !== undefined ? { first_name: lead.first_name } : {}),
              ...(lead.last_name !== undefined ? { last_name: lead.last_name } : {}),
              ...(lead.email !== undefined ? { email: lead.email } : {}),
              ...(lead.phone !== undefined ? { phone: lead.phone } : {}),
              source: lead.provider,
              custom: lead.custom ?? {}
            },
            actor
          )
          const received: LeadReceived = {
            provider: lead.provider,
            lead_id: lead.external_id,
            form_id: null,
            contact_id: contact.contactId,
            created: contact.created
          }
          yield* repo.record(organisation.id, received)
          yield* events.append(organisation.id, [{ event: "lead.received", data: received }], now)
          return received
        })
      )
    )
  })
})

export const layer = Layer.effect(Leads, make)
