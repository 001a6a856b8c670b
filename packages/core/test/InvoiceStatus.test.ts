import { Errors, Invoicing, Money } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { InvoiceStates } = Invoicing
type Invoice = Parameters<typeof InvoiceStates.cancel>[0]
const STATUSES = ["draft", "issued", "partial", "paid", "overdue", "cancelled"] as const

// Only what the rules read; the rest of an invoice does not matter to them.
const invoices = fc
  .record({
    status: fc.constantFrom(...STATUSES),
    kind: fc.constantFrom("normal" as const, "storno" as const),
    // Nothing paid, whole amounts, and cents (a payment of 0.01 is still a payment).
    paid_amount: fc.oneof(
      fc.constant(Money.ZERO),
      fc.integer({ min: 1, max: 10_000 }).map(Money.ofNumber),
      fc.integer({ min: 1, max: 1_000_000 }).map((cents) => Money.ofNumber(cents / 100))
    ),
    due_date: fc.constantFrom("2026-03-01", "2026-03-02", "2026-03-03")
  })
  .map((facts) => facts as unknown as Invoice)

describe("InvoiceStates", () => {
  it("every status reaches paid or cancelled, and paid and cancelled are final", () => {
    const ends = (from: (typeof STATUSES)[number]): boolean =>
      from === "paid" || from === "cancelled" || InvoiceStates.TRANSITIONS[from].some((to) => to !== from && ends(to))
    for (const status of STATUSES) expect(ends(status)).toBe(true)
    expect(InvoiceStates.TRANSITIONS.paid).toEqual([])
    expect(InvoiceStates.TRANSITIONS.cancelled).toEqual([])
  })

  it("cancel takes only a draft; any other status is transition_not_allowed {from, to}", () => {
    fc.assert(
      fc.property(invoices, (invoice) => {
        const outcome = InvoiceStates.cancel(invoice)
        if (invoice.status === "draft") expect(outcome).toEqual(Either.right("cancelled"))
        else {
          const error = Either.flip(outcome).pipe(Either.getOrThrow)
          expect(error).toBeInstanceOf(Errors.TransitionNotAllowed)
          expect(error.detail).toEqual({ from: invoice.status, to: "cancelled" })
        }
      })
    )
  })

  it("a storno reverses exactly an unpaid issued or overdue invoice that is not a storno", () => {
    fc.assert(
      fc.property(invoices, (invoice) => {
        const reversible =
          invoice.kind === "normal" &&
          invoice.paid_amount === "0" &&
          (invoice.status === "issued" || invoice.status === "overdue")
        const outcome = InvoiceStates.reverse(invoice)
        expect(Either.isRight(outcome)).toBe(reversible)
        if (Either.isLeft(outcome)) expect(outcome.left.detail).toMatchObject({ from: invoice.status, to: "cancelled" })
      })
    )
  })

  it("an issued or partly paid invoice past its due date is overdue, never a storno, never on the due date itself", () => {
    fc.assert(
      fc.property(invoices, (invoice) => {
        const expected =
          invoice.kind === "normal" &&
          (invoice.status === "issued" || invoice.status === "partial") &&
          invoice.due_date < "2026-03-02"
        expect(InvoiceStates.isOverdue(invoice, "2026-03-02")).toBe(expected)
      })
    )
  })

  it("a payment's status is a move the machine allows from every payable status", () => {
    fc.assert(
      fc.property(invoices, fc.boolean(), (invoice, inFull) => {
        if (Either.isLeft(InvoiceStates.requirePayable(invoice)) || invoice.status === "paid") return
        expect(InvoiceStates.TRANSITIONS[invoice.status]).toContain(InvoiceStates.afterPayment(inFull))
      })
    )
  })
})
