import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { OrderAlreadyExists, StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { OrderId } from "./OrderIds.js"
import type { OrderFulfilment as Fulfilment, Order, OrderPaymentStatus as PaymentStatus } from "./OrderSchemas.js"

export interface OrderFilter {
  readonly fulfilment?: Fulfilment
  readonly paymentStatus?: PaymentStatus
  readonly contactId?: ContactId
}

/** Orders of one organisation; `external_id` is unique within it. */
export class OrderRepository extends Context.Tag("@crm/core/OrderRepository")<
  OrderRepository,
  {
    /** Refuses a second order with the same `external_id`, naming the one that holds it. */
    readonly insert: (
      organisationId: OrganisationId,
      order: Order
    ) => Effect.Effect<void, OrderAlreadyExists | StorageError>
    readonly get: (organisationId: OrganisationId, id: OrderId) => Effect.Effect<Option.Option<Order>, StorageError>
    /** Like `get`, and no other unit of work changes the order until the calling one ends. */
    readonly getForUpdate: (
      organisationId: OrganisationId,
      id: OrderId
    ) => Effect.Effect<Option.Option<Order>, StorageError>
    /** Writes what can change once an order is placed: its states, tracking link and lines. */
    readonly update: (organisationId: OrganisationId, order: Order) => Effect.Effect<void, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: OrderFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Order>, StorageError>
  }
>() {}
