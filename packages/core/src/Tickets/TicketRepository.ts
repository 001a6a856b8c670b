import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { TicketId } from "./TicketIds.js"
import type { TicketChannel, TicketRecord, TicketStatus } from "./TicketSchemas.js"

export interface TicketFilter {
  readonly status?: TicketStatus
  readonly channel?: TicketChannel
  readonly contactId?: ContactId
  /** Only tickets that are (`value` true) or are not (false) breached at `asOf`, by `TicketSla.isBreached`. */
  readonly breached?: { readonly asOf: string; readonly value: boolean }
}

/** The tickets of one organisation. */
export class TicketRepository extends Context.Tag("@crm/core/TicketRepository")<
  TicketRepository,
  {
    readonly insert: (organisationId: OrganisationId, ticket: TicketRecord) => Effect.Effect<void, StorageError>
    readonly get: (
      organisationId: OrganisationId,
      id: TicketId
    ) => Effect.Effect<Option.Option<TicketRecord>, StorageError>
    /** Like `get`, and no other unit of work changes the ticket until the calling one ends. */
    readonly getForUpdate: (
      organisationId: OrganisationId,
      id: TicketId
    ) => Effect.Effect<Option.Option<TicketRecord>, StorageError>
    readonly update: (organisationId: OrganisationId, ticket: TicketRecord) => Effect.Effect<void, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: TicketFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<TicketRecord>, StorageError>
  }
>() {}
