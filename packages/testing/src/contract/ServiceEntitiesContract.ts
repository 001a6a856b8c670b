/**
 * The storage contract of the service entities (tickets, returns, purchase orders, survey answers,
 * calls): every adapter must pass it unchanged, like every other suite here.
 */
import { Calls, Contacts, Deals, Inventory, Orders, PurchaseOrders, Returns, Surveys, Tickets } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import {
  at,
  expectHeldUntilCommit,
  ids,
  newestFirst,
  newId,
  organisationId,
  page,
  type StoragePorts,
  seed,
  uuid
} from "./Fixtures.js"

type Ticket = Tickets.TicketRecord
type Return = Returns.Return
type PurchaseOrder = PurchaseOrders.PurchaseOrder
type SurveyResponse = Surveys.SurveyResponse
type Call = Calls.Call

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

const rma = (overrides: Partial<Return> = {}): Return => ({
  id: newId(Returns.ReturnId),
  number: "RMA2026-0001",
  order_id: newId(Orders.OrderId),
  contact_id: null,
  status: "requested",
  reason: null,
  items: [{ line: 0, product_id: null, variant_id: null, name: "Kettle", quantity: 1 }],
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

const purchase = (overrides: Partial<PurchaseOrder> = {}): PurchaseOrder => ({
  id: newId(PurchaseOrders.PurchaseOrderId),
  number: "PO2026-0001",
  supplier: "Bolt & Nut Ltd",
  status: "draft",
  items: [
    {
      id: newId(PurchaseOrders.PurchaseOrderLineId),
      product_id: null,
      variant_id: null,
      name: "M6 bolt",
      quantity: 100,
      received_quantity: 0
    }
  ],
  note: null,
  ordered_at: null,
  received_at: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

const answer = (overrides: Partial<SurveyResponse> = {}): SurveyResponse => ({
  id: newId(Surveys.SurveyResponseId),
  survey_id: newId(Surveys.SurveyId),
  kind: "nps",
  score: 9,
  comment: null,
  contact_id: newId(Contacts.ContactId),
  deal_id: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

const call = (overrides: Partial<Call> = {}): Call => ({
  id: newId(Calls.CallId),
  provider: "twilio",
  external_id: null,
  direction: "inbound",
  status: "completed",
  duration_seconds: 61,
  from_number: "+420600000001",
  to_number: "+420600000002",
  contact_id: null,
  recording_url: null,
  started_at: at(0),
  transcript: null,
  summary: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

/** What every repository here promises about list order and pages, on records made by `make`. */
const expectNewestFirstPages = <A extends { readonly id: string; readonly created_at: string }>(
  make: (created_at: string) => A,
  insert: (record: A) => Effect.Effect<void, unknown>,
  list: (limit: number, offset: number) => Effect.Effect<ReadonlyArray<A>, unknown>
) =>
  Effect.gen(function* () {
    const records = [3, 7, 3, 3, 0, 7].map((t) => make(at(t)))
    for (const record of records) yield* insert(record)
    const expected = ids(newestFirst(records))
    expect(ids(yield* list(50, 0))).toEqual(expected)
    expect(ids(yield* list(2, 0))).toEqual(expected.slice(0, 3))
    expect(ids(yield* list(2, 2))).toEqual(expected.slice(2, 5))
    expect(ids(yield* list(2, 6))).toEqual([])
  })

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`service entities storage contract: ${name}`, () => {
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
          expect(yield* list({ breached: { asOf: at(501), value: false }, contactId: ann, status: "pending" })).toEqual(
            [noTarget.id]
          )
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

    describe("ReturnRepository", () => {
      test(
        "round-trips every field (lines as JSON), updates in place, filters by status, order and contact, only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Returns.ReturnRepository
          const order = newId(Orders.OrderId)
          const full = rma({
            order_id: order,
            contact_id: newId(Contacts.ContactId),
            status: "approved",
            reason: 'Arrived broken, "lid" cracked',
            items: [
              {
                line: 3,
                product_id: newId(Inventory.ProductId),
                variant_id: newId(Inventory.VariantId),
                name: "Kettle",
                quantity: 2
              },
              { line: null, product_id: null, variant_id: null, name: "Cup ☕", quantity: 1 }
            ],
            created_at: at(1),
            updated_at: at(1)
          })
          const other = rma({ created_at: at(2), updated_at: at(2) })
          yield* repo.insert(a.id, full)
          yield* repo.insert(a.id, other)
          yield* repo.insert(b.id, rma({ order_id: order, created_at: at(3) }))
          expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(full)
          expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(full)

          const received: Return = { ...full, status: "received", updated_at: at(5) }
          yield* repo.update(a.id, received)
          yield* repo.update(b.id, { ...received, status: "refunded" })
          expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(received)
          expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)

          const list = (filter: Returns.ReturnFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* list({})).toEqual(ids([other, full]))
          expect(yield* list({ status: "received" })).toEqual([full.id])
          expect(yield* list({ status: "requested" })).toEqual([other.id])
          expect(yield* list({ orderId: order })).toEqual([full.id])
          expect(yield* list({ orderId: order, status: "requested" })).toEqual([])
          expect(yield* list({ contactId: full.contact_id! })).toEqual([full.id])
          expect(yield* list({ contactId: full.contact_id!, status: "requested" })).toEqual([])
        })
      )

      test(
        "ofOrder: every return of one order whatever its status, oldest first, only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Returns.ReturnRepository
          const order = newId(Orders.OrderId)
          const later = rma({ order_id: order, status: "cancelled", created_at: at(5), updated_at: at(5) })
          const first = rma({ order_id: order, status: "received", created_at: at(1), updated_at: at(1) })
          const middle = rma({ order_id: order, created_at: at(3), updated_at: at(3) })
          for (const row of [later, first, middle]) yield* repo.insert(a.id, row)
          yield* repo.insert(a.id, rma({ created_at: at(2) }))
          yield* repo.insert(b.id, rma({ order_id: order, created_at: at(4) }))
          expect(yield* repo.ofOrder(a.id, order)).toEqual([first, middle, later])
          expect(yield* repo.ofOrder(a.id, newId(Orders.OrderId))).toEqual([])
          expect(yield* repo.ofOrder(organisationId(), order)).toEqual([])
        })
      )

      concurrent(
        "order and pages as every list; getForUpdate holds the return until the unit commits",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Returns.ReturnRepository
          yield* expectNewestFirstPages(
            (created_at) => rma({ created_at }),
            (row) => repo.insert(a.id, row),
            (limit, offset) => repo.list(a.id, {}, page(limit, offset))
          )
          const row = rma({ created_at: at(10) })
          yield* repo.insert(a.id, row)
          const approved: Return = { ...row, status: "approved", updated_at: at(11) }
          yield* expectHeldUntilCommit(repo.getForUpdate(a.id, row.id), repo.update(a.id, approved), row, approved)
        })
      )
    })

    describe("PurchaseOrderRepository", () => {
      test(
        "round-trips every field (lines as JSON), updates in place, filters by status, only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* PurchaseOrders.PurchaseOrderRepository
          const full = purchase({
            number: "PO/2026-0007",
            supplier: 'Šrouby "Praha" s.r.o.',
            status: "partial",
            items: [
              {
                id: newId(PurchaseOrders.PurchaseOrderLineId),
                product_id: newId(Inventory.ProductId),
                variant_id: newId(Inventory.VariantId),
                name: "M6 bolt",
                quantity: 100,
                received_quantity: 40
              },
              {
                id: newId(PurchaseOrders.PurchaseOrderLineId),
                product_id: null,
                variant_id: null,
                name: "Washer",
                quantity: 5,
                received_quantity: 5
              }
            ],
            note: "deliver to gate 2",
            ordered_at: at(5),
            created_at: at(1),
            updated_at: at(6)
          })
          const draft = purchase({ created_at: at(2), updated_at: at(2) })
          yield* repo.insert(a.id, full)
          yield* repo.insert(a.id, draft)
          expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(full)
          expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(full)

          const received: PurchaseOrder = {
            ...full,
            status: "received",
            items: full.items.map((line) => ({ ...line, received_quantity: line.quantity })),
            received_at: at(9),
            updated_at: at(9)
          }
          yield* repo.update(a.id, received)
          yield* repo.update(b.id, { ...received, status: "cancelled" })
          expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(received)
          expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)
          expect(yield* repo.list(b.id, {}, page(50))).toEqual([])

          const list = (filter: PurchaseOrders.PurchaseOrderFilter) =>
            Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* list({})).toEqual(ids([draft, full]))
          expect(yield* list({ status: "received" })).toEqual([full.id])
          expect(yield* list({ status: "draft" })).toEqual([draft.id])
          expect(yield* list({ status: "partial" })).toEqual([])
        })
      )

      concurrent(
        "order and pages as every list; getForUpdate holds the order until the unit commits",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* PurchaseOrders.PurchaseOrderRepository
          yield* expectNewestFirstPages(
            (created_at) => purchase({ created_at }),
            (row) => repo.insert(a.id, row),
            (limit, offset) => repo.list(a.id, {}, page(limit, offset))
          )
          const row = purchase({ created_at: at(10) })
          yield* repo.insert(a.id, row)
          const ordered: PurchaseOrder = { ...row, status: "ordered", ordered_at: at(11), updated_at: at(11) }
          yield* expectHeldUntilCommit(repo.getForUpdate(a.id, row.id), repo.update(a.id, ordered), row, ordered)
        })
      )
    })

    describe("SurveyResponseRepository", () => {
      test(
        "round-trips every field, filters by survey, kind, contact and deal, only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Surveys.SurveyResponseRepository
          const [survey, ann, deal] = [newId(Surveys.SurveyId), newId(Contacts.ContactId), newId(Deals.DealId)]
          const r1 = answer({ survey_id: survey, kind: "nps", score: 0, contact_id: ann, created_at: at(1) })
          const r2 = answer({
            survey_id: survey,
            kind: "nps",
            score: 10,
            comment: 'Great "support"\nthanks ✓',
            deal_id: deal,
            created_at: at(2)
          })
          const r3 = answer({ kind: "csat", score: 4, contact_id: ann, deal_id: deal, created_at: at(3) })
          const r4 = answer({ kind: "ces", score: 7, created_at: at(4) })
          for (const row of [r1, r2, r3, r4]) yield* repo.insert(a.id, row)
          yield* repo.insert(b.id, answer({ survey_id: survey, contact_id: ann, created_at: at(5) }))

          expect(Option.getOrThrow(yield* repo.get(a.id, r2.id))).toEqual(r2)
          expect(Option.isNone(yield* repo.get(b.id, r2.id))).toBe(true)
          const list = (filter: Surveys.SurveyResponseFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* repo.list(a.id, {}, page(50))).toEqual([r4, r3, r2, r1])
          expect(yield* list({ surveyId: survey })).toEqual(ids([r2, r1]))
          expect(yield* list({ kind: "nps" })).toEqual(ids([r2, r1]))
          expect(yield* list({ kind: "ces" })).toEqual([r4.id])
          expect(yield* list({ contactId: ann })).toEqual(ids([r3, r1]))
          expect(yield* list({ dealId: deal })).toEqual(ids([r3, r2]))
          expect(yield* list({ dealId: deal, contactId: ann, kind: "csat" })).toEqual([r3.id])
          expect(yield* list({ surveyId: survey, kind: "csat" })).toEqual([])
        })
      )

      test(
        "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Surveys.SurveyResponseRepository
          yield* expectNewestFirstPages(
            (created_at) => answer({ created_at }),
            (row) => repo.insert(a.id, row),
            (limit, offset) => repo.list(a.id, {}, page(limit, offset))
          )
        })
      )
    })

    describe("CallRepository", () => {
      test(
        "round-trips every field, updates in place, filters by contact, direction and status, only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Calls.CallRepository
          const ann = newId(Contacts.ContactId)
          const full = call({
            provider: "aircall",
            external_id: "CA-123",
            direction: "outbound",
            status: "completed",
            duration_seconds: 3599,
            contact_id: ann,
            recording_url: "https://recordings.example.com/ca-123.mp3?sig=a%20b",
            started_at: at(-60_000),
            created_at: at(1),
            updated_at: at(1)
          })
          const missed = call({ status: "missed", duration_seconds: 0, contact_id: ann, created_at: at(2) })
          const busy = call({ status: "busy", direction: "outbound", created_at: at(3) })
          for (const row of [full, missed, busy]) yield* repo.insert(a.id, row)
          yield* repo.insert(b.id, call({ contact_id: ann, created_at: at(4) }))
          expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(full)
          expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(full)

          const transcribed: Call = {
            ...full,
            transcript: 'A: Dobrý den.\nB: "Hello" — 你好',
            summary: "Greetings exchanged.",
            updated_at: at(9)
          }
          yield* repo.update(a.id, transcribed)
          yield* repo.update(b.id, { ...transcribed, summary: "Hijacked" })
          expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(transcribed)
          expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)

          const list = (filter: Calls.CallFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* list({})).toEqual(ids([busy, missed, full]))
          expect(yield* list({ contactId: ann })).toEqual(ids([missed, full]))
          expect(yield* list({ direction: "outbound" })).toEqual(ids([busy, full]))
          expect(yield* list({ status: "missed" })).toEqual([missed.id])
          expect(yield* list({ contactId: ann, direction: "inbound", status: "missed" })).toEqual([missed.id])
          expect(yield* list({ contactId: ann, status: "busy" })).toEqual([])
        })
      )

      concurrent(
        "order and pages as every list; getForUpdate holds the call until the unit commits",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Calls.CallRepository
          yield* expectNewestFirstPages(
            (created_at) => call({ created_at }),
            (row) => repo.insert(a.id, row),
            (limit, offset) => repo.list(a.id, {}, page(limit, offset))
          )
          const row = call({ created_at: at(10) })
          yield* repo.insert(a.id, row)
          const transcribed: Call = { ...row, transcript: "hi", summary: null, updated_at: at(11) }
          yield* expectHeldUntilCommit(
            repo.getForUpdate(a.id, row.id),
            repo.update(a.id, transcribed),
            row,
            transcribed
          )
        })
      )
    })
  })
}
