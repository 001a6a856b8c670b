/**
 * Finding the contact a form submission or a lead is about: the live contact holding the email
 * address (compared case-insensitively), else a new one created through `Contacts`, with its rules
 * (plan limit, `contact.created`). Runs inside the caller's unit of work.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ContactRepository } from "../Contacts/ContactRepository.js"
import type { Contacts } from "../Contacts.js"
import type { PlanRefused, StorageError, ValidationFailed } from "../Errors.js"
import type { ContactDetails } from "../Forms/FormAnswers.js"
import type { Organisation } from "../Organisation.js"
import type { Actor } from "../Resource.js"
import { normaliseEmail } from "../Wire.js"

export interface Match {
  readonly contactId: string
  readonly created: boolean
}

const holderOf = (detail: unknown): Option.Option<string> =>
  typeof detail === "object" && detail !== null && "id" in detail && typeof detail.id === "string"
    ? Option.some(detail.id)
    : Option.none()

export const matchContact =
  (contacts: Contacts["Type"], repo: ContactRepository["Type"]) =>
  (
    organisation: Organisation,
    details: ContactDetails,
    actor: Actor
  ): Effect.Effect<Match, PlanRefused | ValidationFailed | StorageError> => {
    const email = details.email === undefined ? undefined : normaliseEmail(details.email)
    const existing =
      email === undefined
        ? Effect.succeed(Option.none<string>())
        : Effect.map(repo.list(organisation.id, { email }, { limit: 1, offset: 0 }), (rows) =>
            Option.map(Option.fromNullable(rows[0]), (contact) => contact.id)
          )
    const create = contacts
      .create(
        organisation,
        {
          status: "lead",
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
        // Someone else created the holder between our look-up and our insert: link to theirs.
        Effect.catchTag("EmailAlreadyExists", (error) =>
          Option.match(holderOf(error.detail), {
            onNone: () => Effect.die(error),
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
