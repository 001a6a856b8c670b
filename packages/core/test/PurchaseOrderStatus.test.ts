import { Errors, Ids, PurchaseOrders } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { PurchaseOrderStates } = PurchaseOrders
const STATUSES = ["draft", "ordered", "partial", "received", "cancelled"] as const
const status = fc.constantFrom(...STATUSES)

const linesArb = fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 5 }).chain((quantities) =>
  fc.tuple(...quantities.map((quantity) => fc.integer({ min: 0, max: quantity }))).map((received) =>
    quantities.map(
      (quantity, i): PurchaseOrders.PurchaseOrderLine => ({
        id: Ids.brand(PurchaseOrders.PurchaseOrderLineId, crypto.randomUUID()),
        product_id: null,
        variant_id: null,
        name: `Line ${i}`,
        quantity,
        received_quantity: received[i]!
      })
    )
  )
)

/** Entries naming lines by index (or, at -1, an unknown id) with quantities that may overshoot. */
const receiptFor = (lines: ReadonlyArray<PurchaseOrders.PurchaseOrderLine>) =>
  fc.array(fc.tuple(fc.integer({ min: -1, max: lines.length - 1 }), fc.integer({ min: 1, max: 25 })), {
    minLength: 1,
    maxLength: 6
  })

describe("PurchaseOrderStates", () => {
  it("allows exactly the listed moves and refuses every other one with transition_not_allowed {from, to}", () => {
    fc.assert(
      fc.property(status, status, (from, to) => {
        const outcome = PurchaseOrderStates.transition(from, to)
        if (PurchaseOrderStates.TRANSITIONS[from].includes(to)) {
          expect(outcome).toEqual(Either.right(to))
        } else {
          const error = Either.flip(outcome).pipe(Either.getOrThrow)
          expect(error).toBeInstanceOf(Errors.TransitionNotAllowed)
          expect(error.detail).toEqual({ from, to })
        }
      })
    )
    expect(STATUSES.filter((s) => PurchaseOrderStates.TRANSITIONS[s].length === 0)).toEqual(["received", "cancelled"])
  })

  it("adds a receipt to the lines, or refuses it naming each unknown line and each overshooting entry", () => {
    fc.assert(
      fc.property(
        linesArb.chain((lines) => fc.tuple(fc.constant(lines), receiptFor(lines), status)),
        ([lines, entries, from]) => {
          const receipt = {
            items: entries.map(([index, quantity]) => ({
              line_id:
                index < 0 ? Ids.brand(PurchaseOrders.PurchaseOrderLineId, crypto.randomUUID()) : lines[index]!.id,
              quantity
            }))
          }
          const outcome = PurchaseOrderStates.receive(from, lines, receipt)
          if (from !== "ordered" && from !== "partial") {
            expect(Either.flip(outcome).pipe(Either.getOrThrow)).toEqual(
              new Errors.TransitionNotAllowed({ detail: { from, to: "received" } })
            )
            return
          }
          // The model: entries apply in order; each one naming no line, or going past what was ordered, is refused.
          const received = lines.map((line) => line.received_quantity)
          const refused: Array<string> = []
          entries.forEach(([index, quantity], i) => {
            if (index < 0) refused.push(`items.${i}.line_id`)
            else if (received[index]! + quantity > lines[index]!.quantity) refused.push(`items.${i}.quantity`)
            else received[index] = received[index]! + quantity
          })
          if (refused.length > 0) {
            const error = Either.flip(outcome).pipe(Either.getOrThrow)
            expect(error).toBeInstanceOf(Errors.ValidationFailed)
            expect((error as Errors.ValidationFailed).detail.map((issue) => issue.path)).toEqual(refused)
            return
          }
          const { items, status: next } = Either.getOrThrow(outcome)
          expect(items).toEqual(lines.map((line, i) => ({ ...line, received_quantity: received[i] })))
          expect(next).toBe(items.every((line) => line.received_quantity === line.quantity) ? "received" : "partial")
        }
      )
    )
  })

  it("stays partial delivery after delivery and becomes received with the last missing unit", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 8 }), (deliveries) => {
        const ordered = deliveries.reduce((sum, n) => sum + n, 0)
        let lines: ReadonlyArray<PurchaseOrders.PurchaseOrderLine> = [
          {
            id: Ids.brand(PurchaseOrders.PurchaseOrderLineId, crypto.randomUUID()),
            product_id: null,
            variant_id: null,
            name: "Bolts",
            quantity: ordered,
            received_quantity: 0
          }
        ]
        let current: (typeof STATUSES)[number] = "ordered"
        deliveries.forEach((quantity, i) => {
          const next = Either.getOrThrow(
            PurchaseOrderStates.receive(current, lines, { items: [{ line_id: lines[0]!.id, quantity }] })
          )
          expect(next.status).toBe(i === deliveries.length - 1 ? "received" : "partial")
          lines = next.items
          current = next.status
        })
        // Nothing more can arrive at a received order.
        expect(
          Either.isLeft(
            PurchaseOrderStates.receive(current, lines, { items: [{ line_id: lines[0]!.id, quantity: 1 }] })
          )
        ).toBe(true)
      })
    )
  })
})
