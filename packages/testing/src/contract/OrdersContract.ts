/**
 * The storage contract of the order and mail ports: every adapter (memory, PGlite, a PostgreSQL
 * server) must pass it unchanged. `makeLayer` gives an isolated, empty store per test.
 */
import { Contacts, Deals, Errors, Inventory, Mail, Orders, Transaction } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { amount, at, ids, newId, organisationId, page, type StoragePorts } from "./Fixtures.js"

const order = (fields: Partial<Orders.Order> = {}): Orders.Order => ({
  id: newId(Orders.OrderId),
  order_number: "ORD2026-000001",
  external_id: crypto.randomUUID(),
  fulfilment: "new",
  payment_status: "none",
  payment_method: null,
  currency: "EUR",
  items: [
    {
      product_id: newId(Inventory.ProductId),
      variant_id: null,
      name: "Mug",
      quantity: 2,
      unit_price: amount(10.5),
      vat_rate: 21,
      net: amount(21),
      vat: amount(4.41),
      gross: amount(25.41),
      stock_taken: true
    }
  ],
  subtotal: amount(21),
  vat_total: amount(4.41),
  total: amount(25.41),
  vat_summary: [{ vat_rate: 21, net: amount(21), vat: amount(4.41), gross: amount(25.41) }],
  tracking_url: null,
  contact_id: newId(Contacts.ContactId),
  deal_id: null,
  created_at: at(0),
  updated_at: at(0),
  ...fields
})

export const message = (fields: Partial<Mail.MailMessage> = {}): Mail.MailMessage => ({
  id: newId(Mail.MailMessageId),
  to: "buyer@example.com",
  subject: "Your order has shipped",
  body: "Track it here: https://t.example/1",
  withheld: false,
  status: "queued",
  attempts: 0,
  last_error: null,
  next_attempt_at: at(0),
  created_at: at(0),
  sent_at: null,
  ...fields
})

const expectTaken = (error: unknown, holder: string) => {
  expect(error).toBeInstanceOf(Errors.OrderAlreadyExists)
  expect((error as Errors.OrderAlreadyExists).detail).toMatchObject({ id: holder })
}

class Rollback {
  readonly _tag = "Rollback"
}

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`orders and mail storage contract: ${name}`, () => {
    describe("OrderRepository", () => {
      test(
        "round-trips every field, and only within its organisation",
        Effect.gen(function* () {
          const repo = yield* Orders.OrderRepository
          const [a, b] = [organisationId(), organisationId()]
          const stored = order({
            payment_method: "card",
            payment_status: "pending",
            deal_id: newId(Deals.DealId),
            tracking_url: "https://t.example/1",
            created_at: at(5),
            updated_at: at(6)
          })
          yield* repo.insert(a, stored)
          expect(Option.getOrThrow(yield* repo.get(a, stored.id))).toEqual(stored)
          expect(Option.getOrThrow(yield* repo.getForUpdate(a, stored.id))).toEqual(stored)
          expect(yield* repo.get(b, stored.id)).toEqual(Option.none())
          const moved = {
            ...stored,
            fulfilment: "cancelled" as const,
            payment_status: "paid" as const,
            items: stored.items.map((line) => ({ ...line, stock_taken: false })),
            updated_at: at(7)
          }
          yield* repo.update(a, moved)
          expect(Option.getOrThrow(yield* repo.get(a, stored.id))).toEqual(moved)
          // Another organisation cannot change it.
          yield* repo.update(b, { ...moved, fulfilment: "new" })
          expect(Option.getOrThrow(yield* repo.get(a, stored.id)).fulfilment).toBe("cancelled")
        })
      )

      test(
        "refuses a second order with an external id the organisation holds, naming the holder; other organisations are free",
        Effect.gen(function* () {
          const repo = yield* Orders.OrderRepository
          const tx = yield* Transaction.Transaction
          const [a, b] = [organisationId(), organisationId()]
          const first = order({ external_id: "shop-1" })
          yield* repo.insert(a, first)
          // Inside a unit of work, which goes on after the refusal (as the Orders service needs).
          const refused = yield* tx.run(
            Effect.gen(function* () {
              const outcome = yield* Effect.either(repo.insert(a, order({ external_id: "shop-1" })))
              const other = order({ external_id: "shop-2" })
              yield* repo.insert(a, other)
              return outcome
            })
          )
          expect(Either.isLeft(refused)).toBe(true)
          if (Either.isLeft(refused)) expectTaken(refused.left, first.id)
          yield* repo.insert(b, order({ external_id: "shop-1" }))
          expect(yield* repo.list(a, {}, page(10))).toHaveLength(2)
        })
      )

      concurrent(
        "concurrent inserts of one external id: exactly one wins, the others name it",
        Effect.gen(function* () {
          const repo = yield* Orders.OrderRepository
          const tx = yield* Transaction.Transaction
          const a = organisationId()
          const contenders = Array.from({ length: 12 }, () => order({ external_id: "same" }))
          const results = yield* Effect.forEach(
            contenders,
            (candidate) => Effect.either(tx.run(repo.insert(a, candidate))),
            { concurrency: "unbounded" }
          )
          const winners = contenders.filter((_, i) => Either.isRight(results[i]!))
          expect(winners).toHaveLength(1)
          for (const result of results) if (Either.isLeft(result)) expectTaken(result.left, winners[0]!.id)
        }),
        120_000
      )

      test(
        "lists newest first (ties by id), pages with one extra row, and filters by fulfilment, payment status and contact",
        Effect.gen(function* () {
          const repo = yield* Orders.OrderRepository
          const a = organisationId()
          const contact = newId(Contacts.ContactId)
          const rows = [
            order({ created_at: at(1), contact_id: contact }),
            order({ created_at: at(2), fulfilment: "shipped", payment_status: "paid" }),
            order({ created_at: at(3), contact_id: contact, payment_status: "pending" }),
            order({ created_at: at(3), fulfilment: "cancelled" })
          ]
          for (const row of rows) yield* repo.insert(a, row)
          const sameTime = [rows[2]!, rows[3]!].sort((x, y) => (x.id < y.id ? 1 : -1))
          expect(ids(yield* repo.list(a, {}, page(10)))).toEqual([...ids(sameTime), rows[1]!.id, rows[0]!.id])
          expect(yield* repo.list(a, {}, page(2))).toHaveLength(3)
          expect(ids(yield* repo.list(a, {}, page(2, 3)))).toEqual([rows[0]!.id])
          expect(ids(yield* repo.list(a, { fulfilment: "shipped" }, page(10)))).toEqual([rows[1]!.id])
          expect(ids(yield* repo.list(a, { paymentStatus: "pending" }, page(10)))).toEqual([rows[2]!.id])
          expect(ids(yield* repo.list(a, { contactId: contact }, page(10)))).toEqual([rows[2]!.id, rows[0]!.id])
          expect(ids(yield* repo.list(a, { contactId: contact, fulfilment: "shipped" }, page(10)))).toEqual([])
          expect(yield* repo.list(organisationId(), {}, page(10))).toEqual([])
        })
      )
    })

    describe("MailOutbox", () => {
      test(
        "enqueues in the caller's unit of work: a rolled-back change leaves no message",
        Effect.gen(function* () {
          const outbox = yield* Mail.MailOutbox
          const tx = yield* Transaction.Transaction
          const a = organisationId()
          const kept = message()
          yield* tx.run(outbox.enqueue(a, kept))
          yield* Effect.either(tx.run(Effect.zipRight(outbox.enqueue(a, message()), Effect.fail(new Rollback()))))
          expect(yield* outbox.list(a, {}, page(10))).toEqual([kept])
          expect(yield* outbox.list(organisationId(), {}, page(10))).toEqual([])
          expect(yield* outbox.claimDue(at(1), at(100), 10)).toHaveLength(1)
        })
      )

      test(
        "lists newest first with a status filter",
        Effect.gen(function* () {
          const outbox = yield* Mail.MailOutbox
          const a = organisationId()
          const old = message({ created_at: at(1), status: "sent", sent_at: at(2), next_attempt_at: null, attempts: 1 })
          const young = message({ created_at: at(3) })
          yield* outbox.enqueue(a, old)
          yield* outbox.enqueue(a, young)
          expect(ids(yield* outbox.list(a, {}, page(10)))).toEqual([young.id, old.id])
          expect(yield* outbox.list(a, { status: "sent" }, page(10))).toEqual([old])
          expect(yield* outbox.list(a, {}, page(1))).toHaveLength(2)
        })
      )

      test(
        "claims queued messages that are due, counting the attempt and hiding each until its lease ends; records outcomes",
        Effect.gen(function* () {
          const outbox = yield* Mail.MailOutbox
          const [a, b] = [organisationId(), organisationId()]
          const due = message({ next_attempt_at: at(10), created_at: at(1) })
          const later = message({ next_attempt_at: at(50) })
          const other = message({ next_attempt_at: at(5) })
          const sent = message({ status: "sent", next_attempt_at: null, sent_at: at(1) })
          yield* outbox.enqueue(a, due)
          yield* outbox.enqueue(a, later)
          yield* outbox.enqueue(b, other)
          yield* outbox.enqueue(a, sent)

          const claimed = yield* outbox.claimDue(at(20), at(30), 10)
          expect(claimed.map(({ organisationId, message }) => [organisationId, message.id]).sort()).toEqual(
            [
              [a, due.id],
              [b, other.id]
            ].sort()
          )
          const mine = claimed.find((entry) => entry.message.id === due.id)!
          expect(mine.message).toEqual({ ...due, attempts: 1, next_attempt_at: at(30) })
          // Leased: nobody else takes it before the lease ends.
          expect(yield* outbox.claimDue(at(25), at(35), 10)).toEqual([])

          yield* outbox.record(a, Mail.MailRetry.failed(mine.message, "451 try later", at(21)))
          const [failedOnce] = yield* outbox
            .list(a, { status: "queued" }, page(10))
            .pipe(Effect.map((rows) => rows.filter((row) => row.id === due.id)))
          expect(failedOnce).toMatchObject({ attempts: 1, last_error: "451 try later", status: "queued" })

          const lateClaim = yield* outbox.claimDue(at(10_000_000), at(10_000_001), 10)
          expect(lateClaim.map(({ message }) => message.id).sort()).toEqual([due.id, later.id, other.id].sort())
          const retried = lateClaim.find((entry) => entry.message.id === due.id)!
          expect(retried.message.attempts).toBe(2)
          yield* outbox.record(a, Mail.MailRetry.succeeded(retried.message, at(10_000_000)))
          expect(yield* outbox.list(a, { status: "sent" }, page(10))).toContainEqual({
            ...retried.message,
            status: "sent",
            sent_at: at(10_000_000),
            last_error: null,
            next_attempt_at: null
          })
        })
      )

      concurrent(
        "concurrent claimers never take the same message",
        Effect.gen(function* () {
          const outbox = yield* Mail.MailOutbox
          const a = organisationId()
          const queued = Array.from({ length: 15 }, (_, i) => message({ next_attempt_at: at(i) }))
          for (const entry of queued) yield* outbox.enqueue(a, entry)
          const rounds = yield* Effect.all(
            Array.from({ length: 5 }, () => outbox.claimDue(at(1_000), at(100_000), 4)),
            { concurrency: "unbounded" }
          )
          const taken = rounds.flatMap((round) => round.map(({ message }) => message.id))
          expect(new Set(taken).size).toBe(taken.length)
          expect(taken.length).toBe(15)
        }),
        120_000
      )
    })
  })
}
