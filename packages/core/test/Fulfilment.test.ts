import { Orders } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { Fulfilment, PaymentStatus } = Orders

const STATES = Orders.OrderFulfilment.options
const PAYMENTS = Orders.OrderPaymentStatus.options

/** The contract's table, written out row by row. */
const TABLE: ReadonlyArray<readonly [Orders.OrderFulfilment, Orders.OrderFulfilment]> = [
  ["new", "confirmed"],
  ["new", "cancelled"],
  ["confirmed", "shipped"],
  ["confirmed", "cancelled"],
  ["shipped", "delivered"]
]
const inTable = (from: string, to: string) => TABLE.some(([f, t]) => f === from && t === to)

const state = fc.constantFrom(...STATES)
const payment = fc.constantFrom(...PAYMENTS)
const facts = fc.record({
  payment_status: payment,
  tracking_url: fc.option(fc.webUrl(), { nil: null })
})

const codeOf = (outcome: Either.Either<unknown, { readonly code: string }>) =>
  Either.isLeft(outcome) ? outcome.left.code : "ok"

describe("Fulfilment", () => {
  it("allows exactly the table's rows (given paid and a tracking url), every other pair is transition_not_allowed {from, to}", () => {
    for (const from of STATES) {
      for (const to of STATES) {
        const outcome = Fulfilment.transition(from, to, { payment_status: "paid", tracking_url: "https://t.example/1" })
        if (inTable(from, to)) expect(outcome).toEqual(Either.right(to))
        else {
          expect(codeOf(outcome)).toBe("transition_not_allowed")
          expect(Either.isLeft(outcome) && outcome.left.detail).toEqual({ from, to })
        }
      }
    }
  })

  it("decides every pair under any facts: refused off the table, pending payment blocks confirm and ship, shipping needs a tracking url", () => {
    fc.assert(
      fc.property(state, state, facts, (from, to, f) => {
        const outcome = Fulfilment.transition(from, to, f)
        const expected = !inTable(from, to)
          ? "transition_not_allowed"
          : (to === "confirmed" || to === "shipped") && f.payment_status === "pending"
            ? "transition_not_allowed"
            : to === "shipped" && f.tracking_url === null
              ? "validation_failed"
              : "ok"
        expect(codeOf(outcome)).toBe(expected)
        if (expected === "ok") expect(outcome).toEqual(Either.right(to))
        if (Either.isLeft(outcome) && outcome.left.code === "transition_not_allowed") {
          expect(outcome.left.detail).toMatchObject({ from, to })
        }
      })
    )
  })

  it("names the pending payment when it is the reason", () => {
    const outcome = Fulfilment.transition("new", "confirmed", { payment_status: "pending", tracking_url: null })
    expect(Either.isLeft(outcome) && outcome.left.detail).toEqual({
      from: "new",
      to: "confirmed",
      reason: "payment_pending"
    })
  })

  it("has delivered and cancelled as its only final states, and no state moves to itself", () => {
    expect(STATES.filter((s) => Fulfilment.TRANSITIONS[s].length === 0)).toEqual(["delivered", "cancelled"])
    fc.assert(
      fc.property(state, facts, (s, f) => {
        expect(Either.isLeft(Fulfilment.transition(s, s, f))).toBe(true)
      })
    )
  })

  it("reaches every state from new, and never leaves a final one", () => {
    const reachable = new Set<string>(["new"])
    for (let grew = true; grew; ) {
      grew = false
      for (const [from, to] of TABLE)
        if (reachable.has(from) && !reachable.has(to)) {
          reachable.add(to)
          grew = true
        }
    }
    expect([...reachable].sort()).toEqual([...STATES].sort())
    fc.assert(
      fc.property(fc.constantFrom("delivered" as const, "cancelled" as const), state, facts, (from, to, f) => {
        expect(Either.isLeft(Fulfilment.transition(from, to, f))).toBe(true)
      })
    )
  })
})

describe("PaymentStatus", () => {
  const ALLOWED: ReadonlyArray<readonly [Orders.OrderPaymentStatus, Orders.OrderPaymentStatus]> = [
    ["none", "pending"],
    ["none", "paid"],
    ["pending", "paid"],
    ["pending", "failed"],
    ["failed", "pending"],
    ["failed", "paid"]
  ]

  it("allows exactly its table; every other pair is transition_not_allowed {from, to}", () => {
    fc.assert(
      fc.property(payment, payment, (from, to) => {
        const outcome = PaymentStatus.transition(from, to)
        if (ALLOWED.some(([f, t]) => f === from && t === to)) expect(outcome).toEqual(Either.right(to))
        else {
          expect(codeOf(outcome)).toBe("transition_not_allowed")
          expect(Either.isLeft(outcome) && outcome.left.detail).toEqual({ from, to })
        }
      })
    )
  })

  it("counts an order as becoming paid only on the move into paid, so order.paid goes out once", () => {
    fc.assert(
      fc.property(fc.option(payment, { nil: null }), payment, (from, to) => {
        expect(PaymentStatus.becamePaid(from, to)).toBe(from !== "paid" && to === "paid")
      })
    )
    expect(PaymentStatus.TRANSITIONS.paid).toEqual([])
  })
})
