/** Purchase orders in memory: rows per organisation, through the shared live-record table. */
import { PurchaseOrders } from "@crm/core"
import type * as Context from "effect/Context"
import * as LiveRecords from "./internal/liveRecords.js"
import type { Store } from "./internal/Store.js"

const purchaseOrders = LiveRecords.table<PurchaseOrders.PurchaseOrder>("purchase_orders")

export const make = (store: Store): Context.Tag.Service<typeof PurchaseOrders.PurchaseOrderRepository> => {
  const live = LiveRecords.make<PurchaseOrders.PurchaseOrder>(store, {
    table: purchaseOrders,
    noun: "purchase order"
  })
  return PurchaseOrders.PurchaseOrderRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, (order) => filter.status === undefined || order.status === filter.status)
  })
}
