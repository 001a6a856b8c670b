import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { StorageError } from "../Errors.js"
import type { OrderId } from "../Orders/OrderIds.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { ReturnId } from "./ReturnIds.js"
import type { Return, ReturnStatus } from "./ReturnSchemas.js"

export interface ReturnFilter {
  readonly status?: ReturnStatus
  readonly orderId?: OrderId
  readonly contactId?: ContactId
}

/** The returns (RMAs) of one organisation. */
export class ReturnRepository extends Context.Tag("@crm/core/ReturnRepository")<
  ReturnRepository,
  {
    readonly insert: (organisationId: OrganisationId, rma: Return) => Effect.Effect<void, StorageError>
    readonly get: (organisationId: OrganisationId, id: ReturnId) => Effect.Effect<Option.Option<Return>, StorageError>
    /** Like `get`, and no other unit of work changes the return until the calling one ends. */
    readonly getForUpdate: (
      organisationId: OrganisationId,
      id: ReturnId
    ) => Effect.Effect<Option.Option<Return>, StorageError>
    readonly update: (organisationId: OrganisationId, rma: Return) => Effect.Effect<void, StorageError>
    /** Every return of one order, whatever its status, oldest first. */
    readonly ofOrder: (
      organisationId: OrganisationId,
      orderId: OrderId
    ) => Effect.Effect<ReadonlyArray<Return>, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: ReturnFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Return>, StorageError>
  }
>() {}
