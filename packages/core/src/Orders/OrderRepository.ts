import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { OrderAlreadyExists, StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { OrderFulfilment as Fulfilment, Order, OrderPaymentStatus as PaymentStatus } from "./OrderSchemas.js"

export interface OrderFilter {
  readonly fulfilment?: Fulfilment
  readonly paymentStatus?: PaymentStatus
  readonly contactId?: ContactId
}

/** Orders of one organisation; `external_id` is unique within it. */
export class OrderRepository extends Context.Tag("@crm/core/OrderRepository")<
  OrderRepository,
  Pick<RecordStore<Order, OrderFilter>, "get" | "getForUpdate" | "list"> & {
    /** Refuses a second order with the same `external_id`, naming the one that holds it. */
    readonly insert: (
      organisationId: OrganisationId,
      order: Order
    ) => Effect.Effect<void, OrderAlreadyExists | StorageError>
    /** Writes what can change once an order is placed: its states, tracking link and lines. */
    readonly update: (organisationId: OrganisationId, order: Order) => Effect.Effect<void, StorageError>
  }
>() {}
