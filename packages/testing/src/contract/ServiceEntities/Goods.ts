/** The service entities storage contract, goods coming back and going in: returns and purchase orders. */
import { Contacts, Inventory, Orders, PurchaseOrders, Returns } from "@crm/core"
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
  organisationId,
  page,
  type StoragePorts,
  seed
} from "../Fixtures.js"

type Return = Returns.Return
type PurchaseOrder = PurchaseOrders.PurchaseOrder

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

export const goodsCases = ({ test, concurrent }: Cases<StoragePorts>): void => {
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

        const list = (filter: PurchaseOrders.PurchaseOrderFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
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
}
