import { Tickets } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { type TicketRow, toTicket } from "./internal/serviceRows.js"

const tickets: LiveRecords.LiveTable<TicketRow, Tickets.TicketRecord> = {
  table: "tickets",
  columns: `id, number, subject, description, status, priority, channel, contact_id, requester_email, assigned_to,
    sla_due_at, created_at, updated_at`,
  toRecord: toTicket,
  repository: "TicketRepository"
}

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
    insert: (organisationId, ticket) =>
      live.insert(
        organisationId,
        sql`${ticket.id}::uuid, ${ticket.number}, ${ticket.subject}, ${ticket.description}, ${ticket.status},
          ${ticket.priority}, ${ticket.channel}, ${ticket.contact_id}::uuid, ${ticket.requester_email},
          ${ticket.assigned_to}::uuid, ${ticket.sla_due_at}::timestamptz, ${ticket.created_at}::timestamptz,
          ${ticket.updated_at}::timestamptz`
      ),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, ticket) =>
      live.update(
        organisationId,
        ticket.id,
        sql`number = ${ticket.number}, subject = ${ticket.subject}, description = ${ticket.description},
          status = ${ticket.status}, priority = ${ticket.priority}, channel = ${ticket.channel},
          contact_id = ${ticket.contact_id}::uuid, requester_email = ${ticket.requester_email},
          assigned_to = ${ticket.assigned_to}::uuid, sla_due_at = ${ticket.sla_due_at}::timestamptz,
          updated_at = ${ticket.updated_at}::timestamptz`
      ),
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
