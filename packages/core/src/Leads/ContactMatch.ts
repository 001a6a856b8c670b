/**
 * Finding the contact a form submission, a lead or an order's buyer is about: the live contact
 * holding the email address (compared case-insensitively), else a new one created through
 * `Contacts`, with its rules (plan limit, `contact.created`). Runs inside the caller's unit of work.
 */

import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ContactId } from "../Contacts/ContactIds.js"
import type { ContactRepository } from "../Contacts/ContactRepository.js"
import type { Contact } from "../Contacts/ContactSchemas.js"
import type { Contacts } from "../Contacts.js"
import type { EmailAlreadyExists, PlanRefused, StorageError, ValidationFailed } from "../Errors.js"
import type { ContactDetails } from "../Forms/FormAnswers.js"
import { brand } from "../Ids.js"
import type { Organisation } from "../Organisation.js"
import type { Actor } from "../Resource.js"
import { normaliseEmail } from "../Wire.js"

export interface Match {
  readonly contactId: ContactId
  readonly created: boolean
}

/** Who the contact is; a new one is a `lead` unless `status` says otherwise (an order's buyer is a customer). */
export type MatchDetails = ContactDetails & { readonly status?: Contact["status"] }

const holderOf = (detail: unknown): Option.Option<ContactId> =>
  typeof detail === "object" && detail !== null && "id" in detail && typeof detail.id === "string"
    ? Option.some(brand(ContactId, detail.id))
    : Option.none()

/**
 * The match. A contact given the address by another unit of work between the look-up and the
 * insert wins it and is the match; a conflict whose holder this unit of work cannot see is
 * `email_already_exists`.
 */
export const findOrCreateContact =
  (contacts: Contacts["Type"], repo: ContactRepository["Type"]) =>
  (
    organisation: Organisation,
    details: MatchDetails,
    actor: Actor
  ): Effect.Effect<Match, EmailAlreadyExists | PlanRefused | ValidationFailed | StorageError> => {
    const email = details.email === undefined ? undefined : normaliseEmail(details.email)
    const existing =
      email === undefined
        ? Effect.succeed(Option.none<ContactId>())
        : Effect.map(
            repo.findByEmail(organisation.id, email),
            Option.map((contact) => contact.id)
          )
    const create = contacts
      .create(
        organisation,
        {
          status: details.status ?? "lead",
          custom: details.custom,
          ...(details.first_name !== undefined ? { first_name: details.first_name } : {}),
          ...(details.last_name !== undefined ? { last_name: details.last_name } : {}),
          ...(email !== undefined ? { email } : {}),
          ...(details.phone !== undefined ? { phone: details.phone } : {}),
          ...(details.source !== undefined ? { source: details.source } : {})
        },
        actor
      )
      .pipe(
        Effect.map((contact): Match => ({ contactId: contact.id, created: true })),
        Effect.catchTag("EmailAlreadyExists", (error) =>
          Option.match(holderOf(error.detail), {
            onNone: () => Effect.fail(error),
            onSome: (contactId) => Effect.succeed<Match>({ contactId, created: false })
          })
        )
      )
    return Effect.flatMap(
      existing,
      Option.match({
        onNone: () => create,
        onSome: (contactId) => Effect.succeed<Match>({ contactId, created: false })
      })
    )
  }

/** The match for forms and leads, whose answers have no `email_already_exists`: a holder no one can see is a defect there. */
export const matchContact = (contacts: Contacts["Type"], repo: ContactRepository["Type"]) => {
  const find = findOrCreateContact(contacts, repo)
  return (
    organisation: Organisation,
    details: MatchDetails,
    actor: Actor
  ): Effect.Effect<Match, PlanRefused | ValidationFailed | StorageError> =>
    Effect.catchTag(find(organisation, details, actor), "EmailAlreadyExists", Effect.die)
}
