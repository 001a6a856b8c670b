/** Tickets in memory: rows per organisation, through the shared live-record table. */
import { Tickets } from "@crm/core"
import type * as Context from "effect/Context"
import * as LiveRecords from "./internal/liveRecords.js"
import type { Store } from "./internal/Store.js"

export const tickets = LiveRecords.table<Tickets.TicketRecord>("tickets")

export const make = (store: Store): Context.Tag.Service<typeof Tickets.TicketRepository> => {
  const live = LiveRecords.make<Tickets.TicketRecord>(store, { table: tickets, noun: "ticket" })
  return Tickets.TicketRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (ticket) =>
          (filter.status === undefined || ticket.status === filter.status) &&
          (filter.channel === undefined || ticket.channel === filter.channel) &&
          (filter.contactId === undefined || ticket.contact_id === filter.contactId) &&
          (filter.breached === undefined ||
            Tickets.TicketSla.isBreached(ticket, filter.breached.asOf) === filter.breached.value)
      )
  })
}
