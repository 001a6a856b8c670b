import { Tickets } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { ticketTable, toTicket } from "./internal/serviceRows.js"

const tickets = LiveRecords.liveTable({ table: ticketTable, toRecord: toTicket, repository: "TicketRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Tickets.TicketRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, tickets)

  // `TicketSla.isBreached` as SQL: the due time passed (strictly) while the clock still runs.
  const breachedAt = (asOf: string) =>
    sql`(${sql.in("status", Tickets.TicketSla.RUNNING)} AND sla_due_at IS NOT NULL
      AND sla_due_at < ${asOf}::timestamptz)`

  return Tickets.TicketRepository.of({
    insert: (organisationId, ticket) => live.insert(organisationId, ticket),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, ticket) => live.update(organisationId, ticket.id, ticket),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
        ...(filter.channel !== undefined ? [sql`channel = ${filter.channel}`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.breached !== undefined
          ? [filter.breached.value ? breachedAt(filter.breached.asOf) : sql`NOT ${breachedAt(filter.breached.asOf)}`]
          : [])
      ])
  })
})

export const layer = Layer.effect(Tickets.TicketRepository, make)
