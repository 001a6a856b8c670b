/** Orders in memory: rows per organisation plus an index of the order holding each external id. */
import { Errors, Orders } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as LiveRecords from "./internal/liveRecords.js"
import { type Store, slot, type Tenant } from "./internal/Store.js"

const orders = LiveRecords.table<Orders.Order>("orders")
/** The order holding each `external_id`: the uniqueness rule, checked in O(1). */
const orderExternalIds = slot("orders.external_ids", HashMap.empty<string, string>())

// An order's external id never changes, so only an insert can meet another holder.
const indexExternalId = (
  t: Tenant,
  order: Orders.Order,
  previous: Orders.Order | undefined
): Either.Either<Tenant, Errors.OrderAlreadyExists> => {
  if (previous !== undefined) return Either.right(t)
  const holder = HashMap.get(orderExternalIds.get(t), order.external_id)
  return Option.isSome(holder)
    ? Either.left(new Errors.OrderAlreadyExists({ detail: { id: holder.value, external_id: order.external_id } }))
    : Either.right(orderExternalIds.update(t, (holders) => HashMap.set(holders, order.external_id, order.id)))
}

export const make = (store: Store): Context.Tag.Service<typeof Orders.OrderRepository> => {
  const live = LiveRecords.make<Orders.Order, Errors.OrderAlreadyExists>(store, {
    table: orders,
    noun: "order",
    onWrite: indexExternalId
  })
  return Orders.OrderRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    // The index refuses only inserts (an update keeps its external id), so this cannot fail.
    update: (organisationId, order) =>
      Effect.catchTag(live.update(organisationId, order), "OrderAlreadyExists", Effect.die),
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (order) =>
          (filter.fulfilment === undefined || order.fulfilment === filter.fulfilment) &&
          (filter.paymentStatus === undefined || order.payment_status === filter.paymentStatus) &&
          (filter.contactId === undefined || order.contact_id === filter.contactId)
      )
  })
}
