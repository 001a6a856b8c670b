import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { StorageError } from "../Errors.js"
import type { OrderId } from "../Orders/OrderIds.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { Return, ReturnStatus } from "./ReturnSchemas.js"

export interface ReturnFilter {
  readonly status?: ReturnStatus
  readonly orderId?: OrderId
  readonly contactId?: ContactId
}

/** The returns (RMAs) of one organisation. */
export class ReturnRepository extends Context.Tag("@crm/core/ReturnRepository")<
  ReturnRepository,
  Pick<RecordStore<Return, ReturnFilter>, "insert" | "get" | "getForUpdate" | "update" | "list"> & {
    /** Every return of one order, whatever its status, oldest first. */
    readonly ofOrder: (
      organisationId: OrganisationId,
      orderId: OrderId
    ) => Effect.Effect<ReadonlyArray<Return>, StorageError>
  }
>() {}
