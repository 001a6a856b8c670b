/** Tickets: customer requests with a number, a status machine and a service-level target. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import * as BusinessTime from "./BusinessClock/BusinessTime.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { Cursors } from "./Cursors.js"
import {
  invalidField,
  type NotFound,
  type StorageError,
  type TransitionNotAllowed,
  type ValidationFailed
} from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { NumberSequence } from "./Invoicing/NumberSequence.js"
import { nextNumber } from "./internal/documentNumbers.js"
import { operation } from "./internal/operation.js"
import { linked, nowIso, orNotFound } from "./internal/records.js"
import { Mailer } from "./Mail.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import { TicketId } from "./Tickets/TicketIds.js"
import { TicketRepository } from "./Tickets/TicketRepository.js"
import type {
  Ticket,
  TicketCreate,
  TicketListQuery,
  TicketPatch,
  TicketRecord,
  TicketReply
} from "./Tickets/TicketSchemas.js"
import * as TicketSla from "./Tickets/TicketSla.js"
import * as TicketStatus from "./Tickets/TicketStatus.js"
import { Transaction } from "./Transaction.js"
import { normaliseEmail, type PageResult, toUtc } from "./Wire.js"

export * from "./Tickets/TicketRepository.js"
export * from "./Tickets/TicketSchemas.js"
export * as TicketSla from "./Tickets/TicketSla.js"
// Not `TicketStatus`: that is the schema of the status (from the schemas), which this name would hide.
export * as TicketStates from "./Tickets/TicketStatus.js"

export class Tickets extends Context.Tag("@crm/core/Tickets")<
  Tickets,
  {
    /** Numbered from the `ticket` series; emits `ticket.created`. */
    readonly create: (
      organisation: Organisation,
      input: z.output<typeof TicketCreate>
    ) => Effect.Effect<Ticket, ValidationFailed | StorageError>
    readonly get: (organisation: Organisation, id: TicketId) => Effect.Effect<Ticket, NotFound | StorageError>
    /** Emits `ticket.updated` only when something changed; a move the status machine refuses changes nothing. */
    readonly update: (
      organisation: Organisation,
      id: TicketId,
      patch: z.output<typeof TicketPatch>
    ) => Effect.Effect<Ticket, NotFound | TransitionNotAllowed | StorageError>
    readonly list: (
      organisation: Organisation,
      query: TicketListQuery
    ) => Effect.Effect<PageResult<Ticket>, ValidationFailed | StorageError>
    /**
     * Mails the answer to the requester (`Re: [<number>] <subject>`) and moves an open ticket to
     * pending (emitting `ticket.updated`); other statuses stay, and a closed ticket refuses a reply
     * as its status machine does (`transition_not_allowed`). One unit of work.
     */
    readonly reply: (
      organisation: Organisation,
      id: TicketId,
      input: TicketReply
    ) => Effect.Effect<Ticket, NotFound | TransitionNotAllowed | StorageError>
  }
>() {}

const CREATED_FIELDS = [
  "id",
  "number",
  "subject",
  "status",
  "priority",
  "channel",
  "contact_id",
  "requester_email"
] as const
const UPDATED_FIELDS = ["id", "number", "status", "priority", "assigned_to"] as const

/** The fields a patch can change: when none differs, the update is no change at all. */
const CHANGEABLE = ["subject", "status", "priority", "assigned_to", "sla_due_at"] as const

const withBreach = (ticket: TicketRecord, now: string): Ticket => ({
  ...ticket,
  breached: TicketSla.isBreached(ticket, now)
})

const utcOrNull = (value: string | null) => (value === null ? null : toUtc(value))

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* TicketRepository
  const cursors = yield* Cursors
  const contacts = yield* ContactRepository
  const sequence = yield* NumberSequence
  const events = yield* EventLog
  const tx = yield* Transaction
  const mailer = yield* Mailer

  const find = (organisationId: OrganisationId, id: TicketId) => repo.get(organisationId, id).pipe(orNotFound("ticket"))
  const lock = (organisationId: OrganisationId, id: TicketId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("ticket"))

  return Tickets.of({
    create: operation("Tickets.create")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const contact =
            input.contact_id == null
              ? undefined
              : yield* linked("contact_id", input.contact_id, (id) => contacts.get(organisation.id, id))
          // The given address, else the contact's: a ticket nobody can be answered on is refused.
          const requester = input.requester_email ?? contact?.email
          if (requester == null) {
            return yield* invalidField(
              "requester_email",
              "required unless the ticket's contact has an email",
              "required"
            )
          }
          const now = yield* nowIso
          // The target and its breach are dates decided by the business clock; timestamps stay real.
          const businessNow = yield* BusinessTime.iso(organisation)
          const priority = input.priority ?? "normal"
          const ticket: TicketRecord = {
            id: brand(TicketId, ids.next()),
            number: yield* nextNumber(sequence, organisation, "ticket"),
            subject: input.subject,
            description: input.description ?? null,
            status: input.status ?? "open",
            priority,
            channel: input.channel ?? "manual",
            contact_id: input.contact_id ?? null,
            requester_email: normaliseEmail(requester),
            assigned_to: input.assigned_to ?? null,
            sla_due_at:
              input.sla_due_at === undefined ? TicketSla.dueAt(priority, businessNow) : utcOrNull(input.sla_due_at),
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, ticket)
          yield* events.append(organisation.id, [{ event: "ticket.created", data: pick(ticket, CREATED_FIELDS) }], now)
          return withBreach(ticket, businessNow)
        })
      )
    }),
    get: (organisation, id) =>
      Effect.zipWith(find(organisation.id, id), BusinessTime.iso(organisation), (ticket, now) =>
        withBreach(ticket, now)
      ),
    update: operation("Tickets.update")(function* (organisation, id, patch) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          const now = yield* nowIso
          const businessNow = yield* BusinessTime.iso(organisation)
          const status =
            patch.status === undefined || patch.status === current.status
              ? current.status
              : yield* TicketStatus.transition(current.status, patch.status)
          const priority = patch.priority ?? current.priority
          const next: TicketRecord = {
            ...current,
            subject: patch.subject ?? current.subject,
            status,
            priority,
            assigned_to: patch.assigned_to === undefined ? current.assigned_to : patch.assigned_to,
            // The target follows the priority it was derived from, unless the caller sets it.
            sla_due_at:
              patch.sla_due_at !== undefined
                ? utcOrNull(patch.sla_due_at)
                : priority !== current.priority
                  ? TicketSla.dueAt(priority, current.created_at)
                  : current.sla_due_at,
            updated_at: now
          }
          if (CHANGEABLE.every((field) => next[field] === current[field])) return withBreach(current, businessNow)
          yield* repo.update(organisation.id, next)
          yield* events.append(organisation.id, [{ event: "ticket.updated", data: pick(next, UPDATED_FIELDS) }], now)
          return withBreach(next, businessNow)
        })
      )
    }),
    list: (organisation, query) =>
      Effect.gen(function* () {
        // Breach is judged by the business clock (a test clock moved past the SLA breaches it).
        const now = yield* BusinessTime.iso(organisation)
        return yield* cursors.page({ organisationId: organisation.id, list: "tickets" }, query, (page) =>
          repo
            .list(
              organisation.id,
              {
                ...(query.status !== undefined ? { status: query.status } : {}),
                ...(query.channel !== undefined ? { channel: query.channel } : {}),
                ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
                ...(query.breached !== undefined ? { breached: { asOf: now, value: query.breached } } : {})
              },
              page
            )
            .pipe(Effect.map((rows) => rows.map((ticket) => withBreach(ticket, now))))
        )
      }),
    reply: operation("Tickets.reply")(function* (organisation, id, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          // A closed ticket is final: the machine refuses the move a reply makes (closed → pending).
          if (current.status === "closed") yield* TicketStatus.transition("closed", "pending")
          const now = yield* nowIso
          const businessNow = yield* BusinessTime.iso(organisation)
          yield* mailer.send(organisation.id, {
            to: current.requester_email,
            subject: `Re: [${current.number}] ${current.subject}`,
            body: input.body
          })
          // Answered: now it waits on the customer. Pending and solved tickets keep their status.
          if (current.status !== "open") return withBreach(current, businessNow)
          const next: TicketRecord = { ...current, status: "pending", updated_at: now }
          yield* repo.update(organisation.id, next)
          yield* events.append(organisation.id, [{ event: "ticket.updated", data: pick(next, UPDATED_FIELDS) }], now)
          return withBreach(next, businessNow)
        })
      )
    })
  })
})

export const layer = Layer.effect(Tickets, make)
