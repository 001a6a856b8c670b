/**
 * The invoice state machine as pure rules: what may be edited, issued, paid, cancelled or
 * reversed, and what a payment or the due date does to the status.
 */
import * as Either from "effect/Either"
import { NotDraft, NotPayable, TransitionNotAllowed } from "../Errors.js"
import type { Invoice, InvoiceStatus } from "./InvoiceSchemas.js"

/** PATCH and issue: only a draft. */
export const requireDraft = (invoice: Invoice): Either.Either<Invoice, NotDraft> =>
  invoice.status === "draft"
    ? Either.right(invoice)
    : Either.left(new NotDraft({ detail: `the invoice is ${invoice.status}, not a draft` }))

const PAYABLE: ReadonlyArray<InvoiceStatus> = ["issued", "partial", "overdue", "paid"]

/** Drafts, cancelled invoices and stornos take no payment (a paid one is refused by the amount check). */
export const requirePayable = (invoice: Invoice): Either.Either<Invoice, NotPayable> =>
  invoice.kind !== "storno" && PAYABLE.includes(invoice.status)
    ? Either.right(invoice)
    : Either.left(
        new NotPayable({
          detail: invoice.kind === "storno" ? "a storno takes no payment" : `the invoice is ${invoice.status}`
        })
      )

/** The status follows the sum of the payments. */
export const afterPayment = (paidInFull: boolean): InvoiceStatus => (paidInFull ? "paid" : "partial")

/** A draft may be cancelled outright; an issued invoice only through a storno. */
export const cancel = (invoice: Invoice): Either.Either<InvoiceStatus, TransitionNotAllowed> =>
  invoice.status === "draft"
    ? Either.right("cancelled")
    : Either.left(new TransitionNotAllowed({ detail: { from: invoice.status, to: "cancelled" } }))

/** Only an unpaid, issued (or overdue) invoice that is not itself a storno can be reversed. */
export const reverse = (invoice: Invoice): Either.Either<InvoiceStatus, TransitionNotAllowed> =>
  invoice.kind !== "storno" &&
  (invoice.status === "issued" || invoice.status === "overdue") &&
  invoice.paid_amount === 0
    ? Either.right("cancelled")
    : Either.left(
        new TransitionNotAllowed({
          detail: {
            from: invoice.status,
            to: "cancelled",
            message: "only an unpaid issued or overdue invoice, not a storno, can be reversed"
          }
        })
      )

/** Issued or partly paid past its due date (in the organisation's calendar); a storno takes no payment, so never. */
export const isOverdue = (invoice: Invoice, today: string): boolean =>
  invoice.kind !== "storno" && (invoice.status === "issued" || invoice.status === "partial") && invoice.due_date < today
