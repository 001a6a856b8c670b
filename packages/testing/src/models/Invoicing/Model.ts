/**
 * The model the invoicing commands are checked against, deliberately simpler than the kernel: each
 * invoice's status, its total and what was paid (in cents: every line has a 25 % VAT rate and
 * whole unit prices, so every amount is exact), the counter its number was given, and the events
 * the log must hold.
 */
import { type Access, type Events, Invoicing, Money } from "@crm/core"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import { same, sameEventLog } from "../Check.js"
import type * as Runner from "../Runner.js"

/** The kernel's services the commands call. */
export type Services = Access.Access | Invoicing.Invoicing | Events.Events

/** A line as the commands generate it: a quantity of whole units at a whole price. */
export interface Line {
  readonly quantity: number
  readonly unitPrice: number
}

/** Every line has this rate: net × 25 % of a whole amount is a whole number of cents. */
export const VAT_RATE = 25

export type Status = "draft" | "issued" | "partial" | "paid" | "cancelled"

export interface ModelInvoice {
  readonly id: Invoicing.InvoiceId
  readonly kind: "normal" | "storno"
  status: Status
  /** Σ quantity × unit price × 1.25, in cents; negative on a storno. */
  totalCents: number
  /** Each payment recorded, in cents, in order. */
  readonly payments: Array<number>
  /** The counter of its series it was numbered with; null while unnumbered (a draft, or a cancelled draft). */
  counter: number | null
  /** On a storno: the invoice it reverses. */
  readonly reverses: string | null
  /** On a reversed invoice: its storno. */
  reversedBy: string | null
}

export interface Model {
  readonly invoices: Array<ModelInvoice>
  /** How many invoices of each series were numbered so far: the next one gets the count plus one. */
  readonly numbered: { normal: number; storno: number }
  /** `event:subject id`, in the order the log must hold them. */
  readonly events: Array<string>
}

export type Real = Runner.Real<Services>

export const totalCents = (lines: ReadonlyArray<Line>): number =>
  lines.reduce((sum, line) => sum + line.quantity * line.unitPrice * (100 + VAT_RATE), 0)

export const paidCents = (invoice: ModelInvoice): number => invoice.payments.reduce((sum, cents) => sum + cents, 0)

/** The exact amount a whole number of cents is (`12345` is `"123.45"`), as the kernel's records carry it. */
export const amountOfCents = (cents: number): Money.Amount => Money.fromDecimal(BigDecimal.make(BigInt(cents), 2))

/** The lines as the service takes them, checked by the wire schema a client's request would meet. */
export const items = (lines: ReadonlyArray<Line>) =>
  Invoicing.InvoiceCreate.shape.items.parse(
    lines.map((line) => ({ name: "work", quantity: line.quantity, unit_price: line.unitPrice, vat_rate: VAT_RATE }))
  )

export const pick = (model: Model, index: number): ModelInvoice => model.invoices[index % model.invoices.length]!

/** After every command: each invoice as the model says (status, amounts, number, links, payments) and the event log. */
export const checkAgainstModel = async (model: Model, real: Real) => {
  const { organisation } = real
  await real.kernel.run(
    Effect.gen(function* () {
      const invoicing = yield* Invoicing.Invoicing
      for (const expected of model.invoices) {
        const invoice = yield* invoicing.get(organisation, expected.id)
        const year = Number(invoice.issue_date.slice(0, 4))
        same(
          {
            kind: invoice.kind,
            status: invoice.status,
            total: invoice.total,
            paid: invoice.paid_amount,
            number: invoice.number ?? null,
            reverses: invoice.original_invoice_id,
            reversedBy: invoice.storno_invoice_id
          },
          {
            kind: expected.kind,
            status: expected.status,
            total: amountOfCents(expected.totalCents),
            paid: amountOfCents(paidCents(expected)),
            number:
              expected.counter === null
                ? null
                : Invoicing.InvoiceNumbering.format(organisation.settings, expected.kind, year, expected.counter),
            reverses: expected.reverses,
            reversedBy: expected.reversedBy
          },
          `invoice ${expected.id}`
        )
        const payments = yield* invoicing.payments(organisation, expected.id)
        same(
          payments.map((payment) => payment.amount),
          expected.payments.map(amountOfCents),
          `payments of invoice ${expected.id}`
        )
      }
      yield* sameEventLog(organisation.id, model.events)
    })
  )
}
