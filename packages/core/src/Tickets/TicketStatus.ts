/**
 * The ticket status machine as data. Work moves a ticket between open (waiting on the team) and
 * pending (waiting on the customer) until it is solved; a solved ticket reopens when the customer
 * answers, or is closed. Closed is final: a customer writing again starts a new ticket, so a closed
 * ticket's history and SLA record never change.
 */
import { type Transitions, transitionIn } from "../internal/StateMachine.js"
import type { TicketStatus } from "./TicketSchemas.js"

export const TRANSITIONS: Transitions<TicketStatus> = {
  open: ["pending", "solved", "closed"],
  pending: ["open", "solved", "closed"],
  solved: ["open", "closed"],
  closed: []
}

export const transition = transitionIn(TRANSITIONS)
