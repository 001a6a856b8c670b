import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { EmailAlreadyExists, StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { ContactId } from "./ContactIds.js"
import type { Contact } from "./ContactSchemas.js"

export interface ContactFilter {
  readonly email?: string
  readonly status?: Contact["status"]
  readonly updatedSince?: string
  readonly q?: string
}

/** Live (not archived) contacts of one organisation. Writes refuse a second live holder of an address. */
export class ContactRepository extends Context.Tag("@crm/core/ContactRepository")<
  ContactRepository,
  {
    readonly insert: (
      organisationId: OrganisationId,
      contact: Contact
    ) => Effect.Effect<void, EmailAlreadyExists | StorageError>
    readonly get: (organisationId: OrganisationId, id: ContactId) => Effect.Effect<Option.Option<Contact>, StorageError>
    /** The live holder of a (normalised) address. */
    readonly findByEmail: (
      organisationId: OrganisationId,
      email: string
    ) => Effect.Effect<Option.Option<Contact>, StorageError>
    readonly update: (
      organisationId: OrganisationId,
      contact: Contact
    ) => Effect.Effect<void, EmailAlreadyExists | StorageError>
    readonly archive: (
      organisationId: OrganisationId,
      id: ContactId,
      at: string
    ) => Effect.Effect<boolean, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: ContactFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Contact>, StorageError>
    readonly countLive: (organisationId: OrganisationId) => Effect.Effect<number, StorageError>
  }
>() {}
