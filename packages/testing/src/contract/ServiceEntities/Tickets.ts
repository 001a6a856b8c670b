/** The service entities storage contract, tickets: `TicketRepository`. */
import { Contacts, Tickets } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Cases } from "../ContractCases.js"
import {
  at,
  expectHeldUntilCommit,
  expectNewestFirstPages,
  ids,
  newId,
  page,
  type StoragePorts,
  seed,
  uuid
} from "../Fixtures.js"

type Ticket = Tickets.TicketRecord

const ticket = (overrides: Partial<Ticket> = {}): Ticket => ({
  id: newId(Tickets.TicketId),
  number: "T2026-00001",
  subject: "Cannot log in",
  description: null,
  status: "open",
  priority: "normal",
  channel: "email",
  contact_id: null,
  requester_email: "ann@example.com",
  assigned_to: null,
  sla_due_at: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

export const ticketCases = ({ test, concurrent }: Cases<StoragePorts>): void => {
  describe("TicketRepository", () => {
    test(
      "round-trips every field, updates in place, and only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Tickets.TicketRepository
        const full = ticket({
          number: "HELP2026-000042",
          subject: 'Invoice "2026-000001" is wrong\nplease fix',
          description: "Příliš žluťoučký kůň",
          status: "pending",
          priority: "urgent",
          channel: "portal",
          contact_id: newId(Contacts.ContactId),
          assigned_to: uuid(),
          sla_due_at: at(4 * 3_600_000),
          created_at: at(1),
          updated_at: at(2)
        })
        const bare = ticket({ created_at: at(2), updated_at: at(2) })
        yield* repo.insert(a.id, full)
        yield* repo.insert(a.id, bare)
        expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(full)
        expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(full)
        expect(yield* repo.list(a.id, {}, page(50))).toEqual([bare, full])

        const changed: Ticket = {
          ...full,
          subject: "Solved it",
          status: "solved",
          priority: "low",
          assigned_to: null,
          sla_due_at: null,
          updated_at: at(9)
        }
        yield* repo.update(a.id, changed)
        expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(changed)

        yield* repo.update(b.id, { ...changed, subject: "Hijacked" })
        expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(changed)
        expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)
        expect(Option.isNone(yield* repo.getForUpdate(b.id, full.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, newId(Tickets.TicketId)))).toBe(true)
        expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
      })
    )

    test(
      "list filters: status, channel, contact, breached as of an instant, each alone and combined",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Tickets.TicketRepository
        const ann = newId(Contacts.ContactId)
        // Due at 100: breached from 101 on while open or pending.
        const late = ticket({
          status: "open",
          channel: "email",
          contact_id: ann,
          sla_due_at: at(100),
          created_at: at(1)
        })
        const waiting = ticket({ status: "pending", channel: "chat", sla_due_at: at(100), created_at: at(2) })
        const solvedLate = ticket({
          status: "solved",
          channel: "email",
          contact_id: ann,
          sla_due_at: at(100),
          created_at: at(3)
        })
        const later = ticket({ status: "open", channel: "portal", sla_due_at: at(500), created_at: at(4) })
        const noTarget = ticket({ status: "pending", channel: "manual", contact_id: ann, created_at: at(5) })
        const closed = ticket({ status: "closed", channel: "email", sla_due_at: at(10), created_at: at(6) })
        for (const row of [late, waiting, solvedLate, later, noTarget, closed]) yield* repo.insert(a.id, row)
        yield* repo.insert(b.id, ticket({ status: "open", sla_due_at: at(1), created_at: at(7) }))

        const list = (filter: Tickets.TicketFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
        expect(yield* list({ status: "open" })).toEqual(ids([later, late]))
        expect(yield* list({ status: "pending" })).toEqual(ids([noTarget, waiting]))
        expect(yield* list({ channel: "email" })).toEqual(ids([closed, solvedLate, late]))
        expect(yield* list({ channel: "chat" })).toEqual([waiting.id])
        expect(yield* list({ contactId: ann })).toEqual(ids([noTarget, solvedLate, late]))
        expect(yield* list({ contactId: newId(Contacts.ContactId) })).toEqual([])

        const breached = (asOf: string, value: boolean) => list({ breached: { asOf, value } })
        expect(yield* breached(at(100), true)).toEqual([])
        expect(yield* breached(at(101), true)).toEqual(ids([waiting, late]))
        expect(yield* breached(at(101), false)).toEqual(ids([closed, noTarget, later, solvedLate]))
        expect(yield* breached(at(501), true)).toEqual(ids([later, waiting, late]))
        expect(yield* breached(at(501), false)).toEqual(ids([closed, noTarget, solvedLate]))
        expect(yield* list({ breached: { asOf: at(501), value: true }, channel: "email" })).toEqual([late.id])
        expect(yield* list({ breached: { asOf: at(501), value: false }, contactId: ann, status: "pending" })).toEqual([
          noTarget.id
        ])
      })
    )

    test(
      "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Tickets.TicketRepository
        yield* expectNewestFirstPages(
          (created_at) => ticket({ created_at }),
          (row) => repo.insert(a.id, row),
          (limit, offset) => repo.list(a.id, {}, page(limit, offset))
        )
      })
    )

    concurrent(
      "getForUpdate in a unit of work holds the ticket until the unit commits",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Tickets.TicketRepository
        const row = ticket()
        yield* repo.insert(a.id, row)
        const solved: Ticket = { ...row, status: "solved", updated_at: at(1) }
        yield* expectHeldUntilCommit(repo.getForUpdate(a.id, row.id), repo.update(a.id, solved), row, solved)
      })
    )
  })
}
