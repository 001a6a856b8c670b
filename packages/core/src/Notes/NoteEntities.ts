/** The records a note or a timeline is about, looked up by type and id within one organisation. */

import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CompanyId } from "../Companies/CompanyIds.js"
import type { CompanyRepository } from "../Companies/CompanyRepository.js"
import { ContactId } from "../Contacts/ContactIds.js"
import type { ContactRepository } from "../Contacts/ContactRepository.js"
import { DealId } from "../Deals/DealIds.js"
import type { DealRepository } from "../Deals/DealRepository.js"
import type { StorageError } from "../Errors.js"
import { brand } from "../Ids.js"
import type { OrganisationId } from "../Organisation.js"
import { RecordId } from "../Records/RecordIds.js"
import type { RecordRepository } from "../Records/RecordRepository.js"
import type { NoteEntityType } from "./NoteSchemas.js"

/** What notes and timelines need of any entity: its label, its creation, the contact it concerns. */
export interface EntitySummary {
  readonly type: NoteEntityType
  readonly id: string
  readonly label: string
  readonly created_at: string
  /** The contact a call about this entity is with: the contact itself, or the deal's/record's live contact. */
  readonly contact_id: ContactId | null
  readonly contact_phone: string | null
}

export interface EntityRepositories {
  readonly contacts: ContactRepository["Type"]
  readonly companies: CompanyRepository["Type"]
  readonly deals: DealRepository["Type"]
  readonly records: RecordRepository["Type"]
}

/** The linked contact when it is still live (an archived one cannot take a call). */
const liveContact = (repos: EntityRepositories, organisationId: OrganisationId, contactId: ContactId | null) =>
  contactId === null
    ? Effect.succeed({ contact_id: null, contact_phone: null })
    : Effect.map(repos.contacts.get(organisationId, contactId), (contact) =>
        Option.match(contact, {
          onNone: () => ({ contact_id: null, contact_phone: null }),
          onSome: (c) => ({ contact_id: c.id, contact_phone: c.phone })
        })
      )

/** The live entity of the organisation, or none (also for another organisation's id). */
export const findEntity = (
  repos: EntityRepositories,
  organisationId: OrganisationId,
  type: NoteEntityType,
  id: string
): Effect.Effect<Option.Option<EntitySummary>, StorageError> => {
  const summary = (label: string, created_at: string, contactId: ContactId | null) =>
    Effect.map(liveContact(repos, organisationId, contactId), (contact) =>
      Option.some<EntitySummary>({ type, id, label, created_at, ...contact })
    )
  const none = Effect.succeed(Option.none<EntitySummary>())
  switch (type) {
    case "contact":
      return Effect.flatMap(repos.contacts.get(organisationId, brand(ContactId, id)), (found) =>
        Option.match(found, {
          onNone: () => none,
          onSome: (c) =>
            Effect.succeed(
              Option.some<EntitySummary>({
                type,
                id,
                label: [c.first_name, c.last_name].filter((part) => part !== null).join(" ") || (c.email ?? id),
                created_at: c.created_at,
                contact_id: c.id,
                contact_phone: c.phone
              })
            )
        })
      )
    case "company":
      return Effect.flatMap(repos.companies.get(organisationId, brand(CompanyId, id)), (found) =>
        Option.match(found, { onNone: () => none, onSome: (c) => summary(c.name, c.created_at, null) })
      )
    case "deal":
      return Effect.flatMap(repos.deals.get(organisationId, brand(DealId, id)), (found) =>
        Option.match(found, { onNone: () => none, onSome: (d) => summary(d.title, d.created_at, d.contact_id) })
      )
    case "record":
      return Effect.flatMap(repos.records.get(organisationId, brand(RecordId, id)), (found) =>
        Option.match(found, {
          onNone: () => none,
          onSome: (r) => summary(r.title ?? `${r.type_key} ${r.id}`, r.created_at, r.contact_id)
        })
      )
  }
}
