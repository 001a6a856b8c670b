/**
 * The service-level target of a ticket as pure rules: how long each priority may stay unsolved,
 * and when a ticket counts as breached.
 */
import type { TicketPriority, TicketStatus } from "./TicketSchemas.js"

const HOUR_MS = 3_600_000

/** Hours from opening to solving, per priority. */
export const TARGET_HOURS: { readonly [P in TicketPriority]: number } = {
  urgent: 4,
  high: 8,
  normal: 24,
  low: 72
}

/** The statuses in which the clock runs: a solved or closed ticket can no longer breach. */
export const RUNNING: ReadonlyArray<TicketStatus> = ["open", "pending"]

export const dueAt = (priority: TicketPriority, openedAt: string): string =>
  new Date(Date.parse(openedAt) + TARGET_HOURS[priority] * HOUR_MS).toISOString()

/** Breached once the due time has passed (strictly) while the clock still runs. */
export const isBreached = (
  ticket: { readonly status: TicketStatus; readonly sla_due_at: string | null },
  now: string
): boolean =>
  ticket.sla_due_at !== null && RUNNING.includes(ticket.status) && Date.parse(ticket.sla_due_at) < Date.parse(now)
