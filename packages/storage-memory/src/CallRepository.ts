/** Calls in memory: rows per organisation, through the shared live-record table. */
import { Calls } from "@crm/core"
import type * as Context from "effect/Context"
import * as LiveRecords from "./internal/liveRecords.js"
import type { Store } from "./internal/Store.js"

export const calls = LiveRecords.table<Calls.Call>("calls")

export const make = (store: Store): Context.Tag.Service<typeof Calls.CallRepository> => {
  const live = LiveRecords.make<Calls.Call>(store, { table: calls, noun: "call" })
  return Calls.CallRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (call) =>
          (filter.contactId === undefined || call.contact_id === filter.contactId) &&
          (filter.direction === undefined || call.direction === filter.direction) &&
          (filter.status === undefined || call.status === filter.status)
      )
  })
}
