/**
 * Tickets, returns, purchase orders, survey answers and calls on every store: each operation emits
 * exactly its catalogue event with exactly the catalogue's keys, refusals and rolled-back units
 * emit nothing, numbers are consecutive, lists filter, and links stay inside the organisation.
 */
import {
  Access,
  Calls,
  Contacts,
  Deals,
  Errors,
  Events,
  Ids,
  Kernel,
  Money,
  Orders,
  PurchaseOrders,
  Returns,
  Settings,
  Surveys,
  Tickets,
  Transaction
} from "@crm/core"
import type { Storage } from "@crm/server"
import { expect, layer } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { layerOn } from "../support/ports.js"
import { storages } from "../support/storages.js"

/** The Events catalogue of the contract, key for key and in its order. */
const CATALOGUE = {
  "ticket.created": ["id", "number", "subject", "status", "priority", "channel", "contact_id", "requester_email"],
  "ticket.updated": ["id", "number", "status", "priority", "assigned_to"],
  "return.created": ["id", "number", "order_id"],
  "return.updated": ["id", "status"],
  "purchase_order.received": ["id", "number"],
  "survey.answered": ["survey_id", "response_id", "kind", "score", "comment", "contact_id", "deal_id"],
  "call.ended": [
    "id",
    "provider",
    "direction",
    "status",
    "duration_seconds",
    "from_number",
    "to_number",
    "contact_id",
    "recording_url"
  ],
  "call.missed": [
    "id",
    "provider",
    "direction",
    "status",
    "duration_seconds",
    "from_number",
    "to_number",
    "contact_id",
    "recording_url"
  ],
  "call.transcribed": [
    "id",
    "provider",
    "direction",
    "status",
    "duration_seconds",
    "from_number",
    "to_number",
    "contact_id",
    "recording_url",
    "transcript",
    "summary"
  ]
} as const

const NOW = Date.parse("2026-05-04T10:00:00.000Z")
const HOUR = 3_600_000
const actor = { keyId: null }

type Services =
  | Access.Access
  | Contacts.Contacts
  | Deals.Deals
  | Orders.Orders
  | Events.Events
  | Tickets.Tickets
  | Returns.Returns
  | PurchaseOrders.PurchaseOrders
  | Surveys.Surveys
  | Calls.Calls
  | Storage.StoragePorts

type Organisation = Settings.Organisation

class Boom extends Data.TaggedError("Boom")<Record<never, never>> {}

const allEvents = (organisation: Organisation) =>
  Effect.flatMap(Events.Events, (events) => events.poll(organisation.id, { limit: 200 })).pipe(
    Effect.map((page) => page.data.map(({ event, data }) => ({ event, data })))
  )

/** Runs `operation` and answers its result with the events it appended, checking each one's keys. */
const emitting = <A, E, R>(organisation: Organisation, operation: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = (yield* allEvents(organisation)).length
    const result = yield* operation
    const emitted = (yield* allEvents(organisation)).slice(before)
    for (const { event, data } of emitted) {
      expect(Object.keys(data)).toEqual(CATALOGUE[event as keyof typeof CATALOGUE])
    }
    return [result, emitted] as const
  })

/** A refused operation: its error, and proof that it appended nothing. */
const refusedQuietly = <A, E, R>(organisation: Organisation, operation: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const [outcome, emitted] = yield* emitting(organisation, Effect.either(operation))
    expect(emitted).toEqual([])
    return Either.flip(outcome).pipe(Either.getOrThrow)
  })

const expectInvalid = (error: unknown, field: string) => {
  expect(error).toBeInstanceOf(Errors.ValidationFailed)
  expect((error as Errors.ValidationFailed).detail.map((issue) => issue.path)).toEqual([field])
}

const setup = Effect.gen(function* () {
  yield* TestClock.setTime(NOW)
  const access = yield* Access.Access
  const contacts = yield* Contacts.Contacts
  const org = yield* access.createOrganisation({ name: "Service", settings: Settings.SettingsInput.parse({}) })
  const other = yield* access.createOrganisation({ name: "Elsewhere", settings: Settings.SettingsInput.parse({}) })
  const ann = yield* contacts.create(org, { first_name: "Ann", email: "Ann@Example.com" }, actor)
  const bob = yield* contacts.create(org, { first_name: "Bob" }, actor)
  const stranger = yield* contacts.create(other, { first_name: "Stranger", email: "s@example.com" }, actor)
  return { org, other, ann, bob, stranger }
})

const buy = (organisation: Organisation, contactId: Contacts.ContactId, externalId: string) =>
  Effect.flatMap(Orders.Orders, (orders) =>
    orders.create(
      organisation,
      {
        external_id: externalId,
        contact_id: contactId,
        items: [{ name: "Kettle", quantity: 2, unit_price: Money.ofNumber(30), vat_rate: 21 }]
      },
      actor
    )
  )

/** The way to delivered: only a delivered order has goods to return. */
const deliver = (organisation: Organisation, order: Orders.Order) =>
  Effect.flatMap(Orders.Orders, (orders) =>
    Effect.forEach(
      [
        { fulfilment: "confirmed" as const },
        { fulfilment: "shipped" as const, tracking_url: "https://track.example/1" },
        { fulfilment: "delivered" as const }
      ],
      (patch) => orders.update(organisation, order.id, patch, actor),
      { discard: true }
    )
  )

for (const storage of storages) {
  // Built on the live clock, as a server builds it; each case runs on a test clock of its own.
  layer(
    layerOn<Services>(storage, (ports) => Kernel.layer.pipe(Layer.provideMerge(ports))),
    {
      excludeTestServices: true
    }
  )(`service entities [${storage.name}]`, (it) => {
    it.effect(
      "tickets: numbered consecutively with defaults and an SLA target, ticket.created with the catalogue's keys",
      () =>
        Effect.gen(function* () {
          const tickets = yield* Tickets.Tickets
          const { org, other, ann, bob, stranger } = yield* setup

          const [first, created] = yield* emitting(
            org,
            tickets.create(org, { subject: "Cannot log in", contact_id: ann.id })
          )
          expect(first).toMatchObject({
            number: "T2026-00001",
            status: "open",
            priority: "normal",
            channel: "manual",
            contact_id: ann.id,
            requester_email: "ann@example.com",
            assigned_to: null,
            sla_due_at: new Date(NOW + 24 * HOUR).toISOString(),
            breached: false
          })
          expect(created).toEqual([
            {
              event: "ticket.created",
              data: {
                id: first.id,
                number: "T2026-00001",
                subject: "Cannot log in",
                status: "open",
                priority: "normal",
                channel: "manual",
                contact_id: ann.id,
                requester_email: "ann@example.com"
              }
            }
          ])

          const second = yield* tickets.create(org, {
            subject: "Refund",
            priority: "urgent",
            channel: "email",
            requester_email: "Someone@Example.org",
            sla_due_at: "2026-05-04T14:00:00+02:00"
          })
          expect(second).toMatchObject({
            number: "T2026-00002",
            contact_id: null,
            requester_email: "someone@example.org",
            sla_due_at: "2026-05-04T12:00:00.000Z"
          })
          const noTarget = yield* tickets.create(org, {
            subject: "FYI",
            requester_email: "x@example.com",
            sla_due_at: null
          })
          expect(noTarget).toMatchObject({ number: "T2026-00003", sla_due_at: null, breached: false })

          // Nobody to answer: refused, nothing emitted, no number used.
          expectInvalid(
            yield* refusedQuietly(org, tickets.create(org, { subject: "?", contact_id: bob.id })),
            "requester_email"
          )
          expectInvalid(yield* refusedQuietly(org, tickets.create(org, { subject: "?" })), "requester_email")
          // Links stay inside the organisation.
          expectInvalid(
            yield* refusedQuietly(org, tickets.create(org, { subject: "?", contact_id: stranger.id })),
            "contact_id"
          )
          expectInvalid(
            yield* refusedQuietly(
              org,
              tickets.create(org, {
                subject: "?",
                contact_id: Ids.brand(Contacts.ContactId, crypto.randomUUID()),
                requester_email: "x@example.com"
              })
            ),
            "contact_id"
          )
          expect((yield* tickets.create(org, { subject: "Next", requester_email: "x@example.com" })).number).toBe(
            "T2026-00004"
          )
          // Each organisation counts its own tickets, and cannot read another's.
          expect((yield* tickets.create(other, { subject: "Theirs", contact_id: stranger.id })).number).toBe(
            "T2026-00001"
          )
          expect(yield* Effect.flip(tickets.get(other, first.id))).toBeInstanceOf(Errors.NotFound)
        }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect("tickets: moves along the status machine, ticket.updated only on a change, refusals change nothing", () =>
      Effect.gen(function* () {
        const tickets = yield* Tickets.Tickets
        const { org, other, ann } = yield* setup
        const ticket = yield* tickets.create(org, { subject: "Broken", contact_id: ann.id })
        const agent = crypto.randomUUID()

        const [pending, updated] = yield* emitting(
          org,
          tickets.update(org, ticket.id, { status: "pending", assigned_to: agent })
        )
        expect(pending).toMatchObject({ status: "pending", assigned_to: agent, sla_due_at: ticket.sla_due_at })
        expect(updated).toEqual([
          {
            event: "ticket.updated",
            data: { id: ticket.id, number: ticket.number, status: "pending", priority: "normal", assigned_to: agent }
          }
        ])

        // Nothing changed: the same ticket and no event.
        const [same, none] = yield* emitting(
          org,
          tickets.update(org, ticket.id, { status: "pending", assigned_to: agent, subject: "Broken" })
        )
        expect(same).toEqual(pending)
        expect(none).toEqual([])

        // A priority change re-derives the target from the opening time.
        const [urgent] = yield* emitting(org, tickets.update(org, ticket.id, { priority: "urgent" }))
        expect(urgent.sla_due_at).toBe(new Date(NOW + 4 * HOUR).toISOString())

        yield* tickets.update(org, ticket.id, { status: "solved" })
        yield* tickets.update(org, ticket.id, { status: "open" })
        const [closed, closing] = yield* emitting(org, tickets.update(org, ticket.id, { status: "closed" }))
        expect(closing.map((event) => event.event)).toEqual(["ticket.updated"])

        const refused = yield* refusedQuietly(org, tickets.update(org, ticket.id, { status: "open", priority: "low" }))
        expect(refused).toBeInstanceOf(Errors.TransitionNotAllowed)
        expect((refused as Errors.TransitionNotAllowed).detail).toEqual({ from: "closed", to: "open" })
        expect(yield* tickets.get(org, ticket.id)).toEqual(closed)

        expect(yield* Effect.flip(tickets.update(other, ticket.id, { status: "open" }))).toBeInstanceOf(Errors.NotFound)
      }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect("tickets: lists by status, channel, contact and breached, which follows the clock and the status", () =>
      Effect.gen(function* () {
        const tickets = yield* Tickets.Tickets
        const { org, other, ann } = yield* setup
        const mail = { requester_email: "x@example.com" }
        const urgent = yield* tickets.create(org, { subject: "u", priority: "urgent", channel: "email", ...mail })
        yield* TestClock.adjust(1000)
        const normal = yield* tickets.create(org, { subject: "n", channel: "chat", contact_id: ann.id })
        yield* TestClock.adjust(1000)
        const low = yield* tickets.create(org, { subject: "l", priority: "low", channel: "email", ...mail })
        yield* TestClock.adjust(1000)
        const untimed = yield* tickets.create(org, { subject: "none", channel: "portal", sla_due_at: null, ...mail })
        yield* tickets.create(other, { subject: "theirs", priority: "urgent", ...mail })

        const list = (query: Partial<Tickets.TicketListQuery>) =>
          Effect.map(tickets.list(org, { limit: 50, offset: 0, ...query }), (page) => page.data.map((t) => t.id))
        expect(yield* list({})).toEqual([untimed.id, low.id, normal.id, urgent.id])
        expect(yield* list({ channel: "email" })).toEqual([low.id, urgent.id])
        expect(yield* list({ contact_id: ann.id })).toEqual([normal.id])
        expect(yield* list({ breached: true })).toEqual([])

        // Five hours on, the urgent ticket (4 h) is late; pending does not stop the clock, solving does.
        yield* TestClock.adjust(5 * HOUR)
        expect(yield* list({ breached: true })).toEqual([urgent.id])
        expect((yield* tickets.get(org, urgent.id)).breached).toBe(true)
        yield* tickets.update(org, urgent.id, { status: "pending" })
        expect(yield* list({ breached: true, status: "pending" })).toEqual([urgent.id])
        yield* TestClock.adjust(20 * HOUR)
        expect(yield* list({ breached: true })).toEqual([normal.id, urgent.id])
        yield* tickets.update(org, urgent.id, { status: "solved" })
        expect(yield* list({ breached: true })).toEqual([normal.id])
        expect(yield* list({ breached: false })).toEqual([untimed.id, low.id, urgent.id])
        expect(yield* list({ status: "solved", breached: false })).toEqual([urgent.id])
        const page = yield* tickets.list(org, { limit: 50, offset: 0, breached: true })
        expect(page.data.map((ticket) => ticket.breached)).toEqual([true])
      }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect(
      "returns: against a live order of the organisation, numbered, return.created and return.updated as the catalogue says",
      () =>
        Effect.gen(function* () {
          const returns = yield* Returns.Returns
          const { org, other, ann, stranger } = yield* setup
          const order = yield* buy(org, ann.id, "shop-1")
          const foreign = yield* buy(other, stranger.id, "shop-1")
          yield* deliver(org, order)
          yield* deliver(other, foreign)
          const items = [{ line: 0, quantity: 1 }]

          const [rma, created] = yield* emitting(
            org,
            returns.create(org, { order_id: order.id, items, reason: "broken" })
          )
          expect(rma).toMatchObject({
            number: "RMA2026-0001",
            order_id: order.id,
            contact_id: ann.id,
            status: "requested",
            reason: "broken",
            items: [{ line: 0, product_id: null, variant_id: null, name: "Kettle", quantity: 1 }]
          })
          expect(created).toEqual([
            { event: "return.created", data: { id: rma.id, number: "RMA2026-0001", order_id: order.id } }
          ])
          expectInvalid(yield* refusedQuietly(org, returns.create(org, { order_id: foreign.id, items })), "order_id")
          expectInvalid(
            yield* refusedQuietly(
              org,
              returns.create(org, { order_id: Ids.brand(Orders.OrderId, crypto.randomUUID()), items })
            ),
            "order_id"
          )
          const second = yield* returns.create(org, { order_id: order.id, items })
          expect(second.number).toBe("RMA2026-0002")

          const [approved, updated] = yield* emitting(org, returns.update(org, rma.id, { status: "approved" }, actor))
          expect(approved.status).toBe("approved")
          expect(updated).toEqual([{ event: "return.updated", data: { id: rma.id, status: "approved" } }])
          const [, none] = yield* emitting(org, returns.update(org, rma.id, { status: "approved" }, actor))
          expect(none).toEqual([])
          const refused = yield* refusedQuietly(org, returns.update(org, rma.id, { status: "refunded" }, actor))
          expect((refused as Errors.TransitionNotAllowed).detail).toEqual({ from: "approved", to: "refunded" })
          yield* returns.update(org, rma.id, { status: "received" }, actor)
          yield* returns.update(org, rma.id, { status: "refunded" }, actor)
          yield* returns.update(org, second.id, { status: "rejected" }, actor)

          const list = (query: Partial<Returns.ReturnListQuery>) =>
            Effect.map(returns.list(org, { limit: 50, offset: 0, ...query }), (page) => page.data.map((r) => r.id))
          expect(yield* list({ status: "refunded" })).toEqual([rma.id])
          expect((yield* list({ order_id: order.id })).sort()).toEqual([second.id, rma.id].sort())
          expect(yield* list({ order_id: foreign.id })).toEqual([])
          expect((yield* list({ contact_id: ann.id })).sort()).toEqual([second.id, rma.id].sort())
          expect(yield* list({ contact_id: stranger.id })).toEqual([])
          expect(yield* Effect.flip(returns.get(other, rma.id))).toBeInstanceOf(Errors.NotFound)
        }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect("purchase orders: draft, ordered, partial deliveries, received with purchase_order.received once", () =>
      Effect.gen(function* () {
        const purchases = yield* PurchaseOrders.PurchaseOrders
        const { org, other } = yield* setup
        const items = [
          { name: "M6 bolt", quantity: 100 },
          { name: "Washer", quantity: 10 }
        ]
        const [draft, quiet] = yield* emitting(org, purchases.create(org, { supplier: "Bolt Ltd", items }))
        expect(quiet).toEqual([])
        expect(draft).toMatchObject({ number: "PO2026-0001", status: "draft", ordered_at: null, received_at: null })
        const [bolts, washers] = draft.items
        expect(draft.items.map((line) => line.received_quantity)).toEqual([0, 0])

        const early = yield* refusedQuietly(
          org,
          purchases.receive(org, draft.id, { items: [{ line_id: bolts!.id, quantity: 1 }] }, actor)
        )
        expect((early as Errors.TransitionNotAllowed).detail).toEqual({ from: "draft", to: "received" })

        const ordered = yield* purchases.order(org, draft.id)
        expect(ordered).toMatchObject({ status: "ordered", ordered_at: new Date(NOW).toISOString() })
        const [partial, none] = yield* emitting(
          org,
          purchases.receive(org, draft.id, { items: [{ line_id: bolts!.id, quantity: 60 }] }, actor)
        )
        expect(none).toEqual([])
        expect(partial.status).toBe("partial")
        expect(partial.items.map((line) => line.received_quantity)).toEqual([60, 0])

        const over = yield* refusedQuietly(
          org,
          purchases.receive(
            org,
            draft.id,
            {
              items: [
                { line_id: washers!.id, quantity: 10 },
                { line_id: bolts!.id, quantity: 41 }
              ]
            },
            actor
          )
        )
        expectInvalid(over, "items.1.quantity")
        expect(yield* purchases.get(org, draft.id)).toEqual(partial)

        const [received, emitted] = yield* emitting(
          org,
          purchases.receive(
            org,
            draft.id,
            {
              items: [
                { line_id: washers!.id, quantity: 10 },
                { line_id: bolts!.id, quantity: 40 }
              ]
            },
            actor
          )
        )
        expect(received).toMatchObject({ status: "received", received_at: new Date(NOW).toISOString() })
        expect(emitted).toEqual([{ event: "purchase_order.received", data: { id: draft.id, number: "PO2026-0001" } }])
        const cancelReceived = yield* refusedQuietly(org, purchases.cancel(org, draft.id))
        expect((cancelReceived as Errors.TransitionNotAllowed).detail).toEqual({ from: "received", to: "cancelled" })

        const second = yield* purchases.create(org, { supplier: "Nut Co", items: [{ name: "Nut", quantity: 5 }] })
        expect(second.number).toBe("PO2026-0002")
        const cancelled = yield* purchases.cancel(org, second.id)
        expect(cancelled.status).toBe("cancelled")
        expect(yield* Effect.flip(purchases.order(org, second.id))).toBeInstanceOf(Errors.TransitionNotAllowed)
        // A partly delivered order may be cancelled: what arrived stays recorded, nothing is emitted.
        const third = yield* purchases.create(org, { supplier: "Nut Co", items: [{ name: "Nut", quantity: 5 }] })
        yield* purchases.order(org, third.id)
        yield* purchases.receive(org, third.id, { items: [{ line_id: third.items[0]!.id, quantity: 2 }] }, actor)
        const [stopped, silent] = yield* emitting(org, purchases.cancel(org, third.id))
        expect(silent).toEqual([])
        expect(stopped).toMatchObject({ status: "cancelled", received_at: null })
        expect(stopped.items.map((line) => line.received_quantity)).toEqual([2])

        const list = (query: Partial<PurchaseOrders.PurchaseOrderListQuery>) =>
          Effect.map(purchases.list(org, { limit: 50, offset: 0, ...query }), (page) => page.data.map((p) => p.id))
        expect((yield* list({})).sort()).toEqual([second.id, draft.id, third.id].sort())
        expect(yield* list({ status: "received" })).toEqual([draft.id])
        expect((yield* list({ status: "cancelled" })).sort()).toEqual([second.id, third.id].sort())
        expect(yield* Effect.flip(purchases.get(other, draft.id))).toBeInstanceOf(Errors.NotFound)
      }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect("surveys: survey.answered with the catalogue's keys; contact and deal must be the organisation's", () =>
      Effect.gen(function* () {
        const surveys = yield* Surveys.Surveys
        const deals = yield* Deals.Deals
        const { org, other, ann, bob, stranger } = yield* setup
        const deal = yield* deals.create(org, { title: "Renewal", contact_id: ann.id }, actor)
        const foreignDeal = yield* deals.create(other, { title: "Theirs" }, actor)
        const survey = Ids.brand(Surveys.SurveyId, crypto.randomUUID())

        const [response, emitted] = yield* emitting(
          org,
          surveys.answer(org, {
            survey_id: survey,
            kind: "nps",
            score: 9,
            comment: "Great",
            contact_id: ann.id,
            deal_id: deal.id
          })
        )
        expect(emitted).toEqual([
          {
            event: "survey.answered",
            data: {
              survey_id: survey,
              response_id: response.id,
              kind: "nps",
              score: 9,
              comment: "Great",
              contact_id: ann.id,
              deal_id: deal.id
            }
          }
        ])
        const [csat, second] = yield* emitting(
          org,
          surveys.answer(org, { survey_id: survey, kind: "csat", score: 1, contact_id: bob.id })
        )
        expect(second[0]!.data).toMatchObject({ comment: null, deal_id: null, response_id: csat.id })

        expectInvalid(
          yield* refusedQuietly(
            org,
            surveys.answer(org, { survey_id: survey, kind: "ces", score: 3, contact_id: stranger.id })
          ),
          "contact_id"
        )
        expectInvalid(
          yield* refusedQuietly(
            org,
            surveys.answer(org, {
              survey_id: survey,
              kind: "ces",
              score: 3,
              contact_id: ann.id,
              deal_id: foreignDeal.id
            })
          ),
          "deal_id"
        )
        // Scores outside the kind's scale never reach the kernel: the one schema refuses them.
        const outOfScale = Surveys.SurveyAnswer.safeParse({
          survey_id: survey,
          kind: "csat",
          score: 6,
          contact_id: ann.id
        })
        expect(outOfScale.success).toBe(false)
        expect(outOfScale.error?.issues.map((issue) => issue.path)).toEqual([["score"]])
        expect(
          Surveys.SurveyAnswer.safeParse({ survey_id: survey, kind: "nps", score: 0, contact_id: ann.id }).success
        ).toBe(true)

        const list = (query: Partial<Surveys.SurveyResponseListQuery>) =>
          Effect.map(surveys.list(org, { limit: 50, offset: 0, ...query }), (page) => page.data.map((r) => r.id))
        expect((yield* list({ survey_id: survey })).sort()).toEqual([csat.id, response.id].sort())
        expect(yield* list({ contact_id: ann.id })).toEqual([response.id])
        expect(yield* list({ deal_id: deal.id, kind: "nps" })).toEqual([response.id])
        expect(yield* list({ kind: "ces" })).toEqual([])
        expect(yield* Effect.flip(surveys.get(other, response.id))).toBeInstanceOf(Errors.NotFound)
      }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect("calls: call.ended, call.missed or nothing by status; call.transcribed with transcript and summary", () =>
      Effect.gen(function* () {
        const calls = yield* Calls.Calls
        const { org, other, ann, stranger } = yield* setup
        const base = {
          provider: "twilio",
          direction: "inbound" as const,
          from_number: "+420600000001",
          to_number: "+420600000002",
          started_at: "2026-05-04T11:58:00+02:00"
        }
        const [completed, ended] = yield* emitting(
          org,
          calls.log(org, {
            ...base,
            status: "completed",
            duration_seconds: 125,
            contact_id: ann.id,
            recording_url: "https://rec.example.com/1.mp3"
          })
        )
        expect(completed.started_at).toBe("2026-05-04T09:58:00.000Z")
        const fields = {
          id: completed.id,
          provider: "twilio",
          direction: "inbound",
          status: "completed",
          duration_seconds: 125,
          from_number: "+420600000001",
          to_number: "+420600000002",
          contact_id: ann.id,
          recording_url: "https://rec.example.com/1.mp3"
        }
        expect(ended).toEqual([{ event: "call.ended", data: fields }])

        for (const status of ["missed", "no_answer", "busy"] as const) {
          const [call, missed] = yield* emitting(org, calls.log(org, { ...base, status, duration_seconds: 0 }))
          expect(missed).toEqual([
            {
              event: "call.missed",
              data: { ...fields, id: call.id, status, duration_seconds: 0, contact_id: null, recording_url: null }
            }
          ])
        }
        const [failed, nothing] = yield* emitting(
          org,
          calls.log(org, {
            ...base,
            direction: "outbound",
            status: "failed",
            duration_seconds: 0,
            contact_id: ann.id
          })
        )
        expect(nothing).toEqual([])

        const [transcribed, emitted] = yield* emitting(
          org,
          calls.transcribe(org, completed.id, { transcript: "A: Hello\nB: Hi", summary: "Greeting" })
        )
        expect(transcribed).toMatchObject({ transcript: "A: Hello\nB: Hi", summary: "Greeting" })
        expect(emitted).toEqual([
          { event: "call.transcribed", data: { ...fields, transcript: "A: Hello\nB: Hi", summary: "Greeting" } }
        ])

        expectInvalid(
          yield* refusedQuietly(
            org,
            calls.log(org, { ...base, status: "completed", duration_seconds: 1, contact_id: stranger.id })
          ),
          "contact_id"
        )
        expect(yield* refusedQuietly(org, calls.transcribe(other, completed.id, { transcript: "x" }))).toBeInstanceOf(
          Errors.NotFound
        )

        const list = (query: Partial<Calls.CallListQuery>) =>
          Effect.map(calls.list(org, { limit: 50, offset: 0, ...query }), (page) => page.data.map((c) => c.id))
        expect((yield* list({ contact_id: ann.id })).sort()).toEqual([failed.id, completed.id].sort())
        expect(yield* list({ contact_id: ann.id, direction: "inbound" })).toEqual([completed.id])
        expect((yield* list({ status: "missed" })).length).toBe(1)
        expect((yield* list({})).length).toBe(5)
      }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect("concurrent creations take consecutive numbers, none shared", () =>
      Effect.gen(function* () {
        const tickets = yield* Tickets.Tickets
        const purchases = yield* PurchaseOrders.PurchaseOrders
        const { org, ann } = yield* setup
        const created = yield* Effect.all(
          Array.from({ length: 8 }, () =>
            Effect.zip(
              tickets.create(org, { subject: "Rush", contact_id: ann.id }),
              purchases.create(org, { supplier: "S", items: [{ name: "x", quantity: 1 }] }),
              { concurrent: true }
            )
          ),
          { concurrency: "unbounded" }
        )
        const expected = (prefix: string, digits: number) =>
          Array.from({ length: 8 }, (_, i) => `${prefix}2026-${String(i + 1).padStart(digits, "0")}`)
        expect(created.map(([ticket]) => ticket.number).sort()).toEqual(expected("T", 5))
        expect(created.map(([, purchase]) => purchase.number).sort()).toEqual(expected("PO", 4))
      }).pipe(Effect.provide(TestContext.TestContext))
    )

    it.effect("a unit of work that rolls back leaves no record, no event and no used number behind", () =>
      Effect.gen(function* () {
        const tx = yield* Transaction.Transaction
        const tickets = yield* Tickets.Tickets
        const returns = yield* Returns.Returns
        const purchases = yield* PurchaseOrders.PurchaseOrders
        const surveys = yield* Surveys.Surveys
        const calls = yield* Calls.Calls
        const { org, ann } = yield* setup
        const order = yield* buy(org, ann.id, "shop-9")
        yield* deliver(org, order)
        const ticket = yield* tickets.create(org, { subject: "Kept", contact_id: ann.id })
        const purchase = yield* purchases.create(org, { supplier: "S", items: [{ name: "x", quantity: 1 }] })
        yield* purchases.order(org, purchase.id)
        const call = yield* calls.log(org, {
          provider: "manual",
          direction: "outbound",
          status: "completed",
          duration_seconds: 5,
          from_number: "1",
          to_number: "2",
          started_at: new Date(NOW).toISOString()
        })

        const operations: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
          tickets.create(org, { subject: "Lost", contact_id: ann.id }),
          tickets.update(org, ticket.id, { status: "solved" }),
          returns.create(org, { order_id: order.id, items: [{ line: 0, quantity: 1 }] }),
          purchases.receive(org, purchase.id, { items: [{ line_id: purchase.items[0]!.id, quantity: 1 }] }, actor),
          surveys.answer(org, {
            survey_id: Ids.brand(Surveys.SurveyId, crypto.randomUUID()),
            kind: "nps",
            score: 5,
            contact_id: ann.id
          }),
          calls.log(org, { ...call, contact_id: null, recording_url: null, external_id: null }),
          calls.transcribe(org, call.id, { transcript: "lost" })
        ]
        for (const operation of operations) {
          const failed = yield* refusedQuietly(org, tx.run(Effect.zipRight(operation, Effect.fail(new Boom()))))
          expect(failed).toBeInstanceOf(Boom)
        }

        expect((yield* tickets.get(org, ticket.id)).status).toBe("open")
        expect((yield* purchases.get(org, purchase.id)).status).toBe("ordered")
        expect((yield* calls.get(org, call.id)).transcript).toBeNull()
        const page = { limit: 50, offset: 0 }
        expect((yield* tickets.list(org, page)).data.map((t) => t.id)).toEqual([ticket.id])
        expect((yield* returns.list(org, page)).data).toEqual([])
        expect((yield* surveys.list(org, page)).data).toEqual([])
        expect((yield* calls.list(org, page)).data.map((c) => c.id)).toEqual([call.id])
        // The numbers taken inside the rolled-back units were given back.
        expect((yield* tickets.create(org, { subject: "Next", contact_id: ann.id })).number).toBe("T2026-00002")
        expect((yield* returns.create(org, { order_id: order.id, items: [{ line: 0, quantity: 1 }] })).number).toBe(
          "RMA2026-0001"
        )
      }).pipe(Effect.provide(TestContext.TestContext))
    )
  })
}
