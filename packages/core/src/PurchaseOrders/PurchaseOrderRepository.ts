import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { PurchaseOrderId } from "./PurchaseOrderIds.js"
import type { PurchaseOrder, PurchaseOrderStatus } from "./PurchaseOrderSchemas.js"

export interface PurchaseOrderFilter {
  readonly status?: PurchaseOrderStatus
}

/** The purchase orders of one organisation. */
export class PurchaseOrderRepository extends Context.Tag("@crm/core/PurchaseOrderRepository")<
  PurchaseOrderRepository,
  {
    readonly insert: (organisationId: OrganisationId, order: PurchaseOrder) => Effect.Effect<void, StorageError>
    readonly get: (
      organisationId: OrganisationId,
      id: PurchaseOrderId
    ) => Effect.Effect<Option.Option<PurchaseOrder>, StorageError>
    /** Like `get`, and no other unit of work changes the order until the calling one ends. */
    readonly getForUpdate: (
      organisationId: OrganisationId,
      id: PurchaseOrderId
    ) => Effect.Effect<Option.Option<PurchaseOrder>, StorageError>
    readonly update: (organisationId: OrganisationId, order: PurchaseOrder) => Effect.Effect<void, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: PurchaseOrderFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<PurchaseOrder>, StorageError>
  }
>() {}
