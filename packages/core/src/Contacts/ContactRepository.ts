import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { EmailAlreadyExists, StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { ErasureOutcome } from "./ContactErasure.js"
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
  Pick<RecordStore<Contact, ContactFilter, EmailAlreadyExists>, "insert" | "get" | "update" | "archive" | "list"> & {
    /** The live holder of a (normalised) address. */
    readonly findByEmail: (
      organisationId: OrganisationId,
      email: string
    ) => Effect.Effect<Option.Option<Contact>, StorageError>
    readonly countLive: (organisationId: OrganisationId) => Effect.Effect<number, StorageError>
    /**
     * Erases the person, live or archived, as `ContactErasure.ts` rules: the row keeps its id but
     * loses every personal field and is archived (its address is free); the copies in events and
     * their webhook deliveries (bodies rewritten, attempt excerpts dropped), form submissions,
     * survey answers, calls, tickets, bookings and draft invoices are erased; mail to the address,
     * visits and notes on the contact are deleted. Issued invoices keep their buyer and are listed
     * in `kept`. `None` when the organisation never had the contact. Run it inside a unit of work.
     */
    readonly erase: (
      organisationId: OrganisationId,
      id: ContactId,
      at: string
    ) => Effect.Effect<Option.Option<ErasureOutcome>, StorageError>
  }
>() {}
