import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { CompanyId } from "../Companies/CompanyIds.js"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { QuoteId } from "./QuoteIds.js"
import type { Quote, QuoteRevision, QuoteStatus } from "./QuoteSchemas.js"

export interface QuoteFilter {
  readonly status?: QuoteStatus
  readonly contactId?: ContactId
  readonly companyId?: CompanyId
}

/** Quotes of one organisation and the revisions their sends froze. */
export class QuoteRepository extends Context.Tag("@crm/core/QuoteRepository")<
  QuoteRepository,
  Pick<RecordStore<Quote, QuoteFilter>, "insert" | "get" | "getForUpdate" | "update" | "list"> & {
    /** The organisation owning the quote: the admin API names only the quote's id. */
    readonly organisationOf: (id: QuoteId) => Effect.Effect<Option.Option<OrganisationId>, StorageError>
    readonly addRevision: (organisationId: OrganisationId, revision: QuoteRevision) => Effect.Effect<void, StorageError>
    /** Oldest first. */
    readonly revisions: (
      organisationId: OrganisationId,
      quoteId: QuoteId
    ) => Effect.Effect<ReadonlyArray<QuoteRevision>, StorageError>
    /** Sent quotes whose `valid_until` is before `today`, for the expiry job. */
    readonly sentExpiringBefore: (
      organisationId: OrganisationId,
      today: string
    ) => Effect.Effect<ReadonlyArray<Quote>, StorageError>
    /** Analytics: accepted quotes not made into an invoice yet (`invoice_id` null), in no particular order. */
    readonly acceptedNotInvoiced: (organisationId: OrganisationId) => Effect.Effect<ReadonlyArray<Quote>, StorageError>
  }
>() {}
