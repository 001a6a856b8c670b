/** Returns (RMAs) in memory: rows per organisation, through the shared live-record table. */
import { Returns } from "@crm/core"
import type * as Context from "effect/Context"
import * as LiveRecords from "./internal/liveRecords.js"
import { newestFirst, type Store } from "./internal/Store.js"

const returns = LiveRecords.table<Returns.Return>("returns")

export const make = (store: Store): Context.Tag.Service<typeof Returns.ReturnRepository> => {
  const live = LiveRecords.make<Returns.Return>(store, { table: returns, noun: "return" })
  return Returns.ReturnRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    ofOrder: (organisationId, orderId) =>
      live.select(
        organisationId,
        (rma) => rma.order_id === orderId,
        (x, y) => newestFirst(y, x)
      ),
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (rma) =>
          (filter.status === undefined || rma.status === filter.status) &&
          (filter.orderId === undefined || rma.order_id === filter.orderId) &&
          (filter.contactId === undefined || rma.contact_id === filter.contactId)
      )
  })
}
