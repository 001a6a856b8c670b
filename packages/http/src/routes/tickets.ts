/** Tickets over REST: list, get, and a reply that mails the requester (decisions page). */
import { Tickets } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { route, write } from "../Route.js"
import { getRoute, listRoute } from "./resource.js"

const spec = {
  service: Tickets.Tickets,
  plural: "tickets",
  singular: "ticket",
  pascal: "Ticket",
  schemas: {
    id: Tickets.TicketId,
    create: Tickets.TicketCreate,
    patch: Tickets.TicketPatch,
    record: Tickets.Ticket,
    page: Tickets.TicketPage,
    query: Tickets.TicketListQuery
  },
  createErrors: [],
  updateErrors: []
} as const

export const ticketRoutes = [
  listRoute(spec),
  getRoute(spec),
  route({
    method: "POST",
    path: "/tickets/{id}/reply",
    params: { id: Tickets.TicketId },
    operationId: "replyToTicket",
    tag: "tickets",
    guard: write,
    summary:
      "Answer the requester: mails body to requester_email with the subject `Re: [<number>] <subject>`; an open ticket moves to pending (emits ticket.updated), pending and solved ones keep their status, a closed ticket is 409 transition_not_allowed",
    body: Tickets.TicketReply,
    success: { status: 200, schema: Tickets.Ticket, description: "the ticket" },
    errors: ["not_found", "validation_failed", "transition_not_allowed"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Tickets.Tickets, (tickets) => tickets.reply(principal.organisation, params.id, body)).pipe(
        Effect.map(ok)
      )
  })
]

export const ticketsArea: Area = {
  api: ticketRoutes,
  // A ticket's priority is the tasks' (TicketPriority is TaskPriority): one shape, one name.
  schemaNames: named(Tickets, "Ticket", "TicketPage", "TicketReply", "TicketChannel")
}
