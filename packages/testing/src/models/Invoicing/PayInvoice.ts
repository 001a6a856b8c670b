import { Invoicing } from "@crm/core"
import * as Effect from "effect/Effect"
import type fc from "fast-check"
import { same } from "../Check.js"
import { attempt } from "../Runner.js"
import { amountOfCents, checkAgainstModel, type Model, paidCents, pick, type Real } from "./Model.js"

/** How much a payment is: a share (0 to 1) of what is outstanding, exactly the rest, or a cent more than the rest. */
export type Share = { readonly part: number } | "rest" | "over"

/**
 * A payment: refused with not_payable on a draft, a cancelled invoice or a storno; refused with
 * validation_failed above the outstanding amount; else recorded, the invoice partly paid or paid,
 * and invoice.paid written when it is paid in full.
 */
export class PayInvoice implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly share: Share
  ) {}
  check = (model: Readonly<Model>) => model.invoices.length > 0
  async run(model: Model, real: Real) {
    const invoice = pick(model, this.pick)
    const outstanding = invoice.totalCents - paidCents(invoice)
    const cents =
      this.share === "rest"
        ? outstanding
        : this.share === "over"
          ? outstanding + 1
          : Math.floor(outstanding * this.share.part)
    // A client cannot send a payment of nothing: the wire schema wants a positive amount.
    const amount = Math.max(cents, 1)
    const result = await attempt(
      real,
      Effect.flatMap(Invoicing.Invoicing, (invoicing) =>
        invoicing.pay(real.organisation, invoice.id, Invoicing.PaymentCreate.parse({ amount: amount / 100 }))
      )
    )
    const payable = invoice.kind !== "storno" && invoice.status !== "draft" && invoice.status !== "cancelled"
    if (!payable) {
      same(
        result._tag === "Left" && result.left.code,
        "not_payable",
        `paying a ${invoice.kind} ${invoice.status} invoice`
      )
    } else if (amount > outstanding) {
      same(result._tag === "Left" && result.left.code, "validation_failed", "a payment above the outstanding amount")
    } else {
      if (result._tag === "Left") throw result.left
      same(result.right.amount, amountOfCents(amount), "the payment's amount")
      invoice.payments.push(amount)
      invoice.status = amount === outstanding ? "paid" : "partial"
      if (invoice.status === "paid") model.events.push(`invoice.paid:${invoice.id}`)
    }
    await checkAgainstModel(model, real)
  }
  toString = () => `PayInvoice(#${this.pick}, ${JSON.stringify(this.share)})`
}
