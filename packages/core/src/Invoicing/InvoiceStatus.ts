/**
 * The invoice state machine: its moves as data, in the shape every machine of the core has
 * (`internal/StateMachine`), and the rules beside it that the moves alone do not say: what may be
 * edited or paid, what a payment or the due date does, and which cancellations the kind and the
 * payments allow.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Either from "effect/Either"
import { NotDraft, NotPayable, TransitionNotAllowed } from "../Errors.js"
import { type Transitions, transitionIn } from "../internal/StateMachine.js"
import { toDecimal } from "../Money/Amount.js"
import type { Invoice, InvoiceStatus } from "./InvoiceSchemas.js"

export const TRANSITIONS: Transitions<InvoiceStatus> = {
  // Issued with a number, or cancelled outright.
  draft: ["issued", "cancelled"],
  // Payments make it partial or paid, the due date overdue; a storno cancels it.
  issued: ["partial", "paid", "overdue", "cancelled"],
  partial: ["partial", "paid", "overdue"],
  overdue: ["partial", "paid", "cancelled"],
  paid: [],
  cancelled: []
}

const move = transitionIn(TRANSITIONS)

/** PATCH and issue: only a draft. */
export const requireDraft = (invoice: Invoice): Either.Either<Invoice, NotDraft> =>
  invoice.status === "draft"
    ? Either.right(invoice)
    : Either.left(new NotDraft({ detail: `the invoice is ${invoice.status}, not a draft` }))

// A paid invoice is payable too: what it refuses is the amount (422), not the payment (409).
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
    ? move(invoice.status, "cancelled")
    : Either.left(new TransitionNotAllowed({ detail: { from: invoice.status, to: "cancelled" } }))

/** A storno cancels an issued (or overdue) invoice that nothing has been paid on and that is not itself a storno. */
export const reverse = (invoice: Invoice): Either.Either<InvoiceStatus, TransitionNotAllowed> =>
  invoice.kind !== "storno" &&
  invoice.status !== "draft" &&
  BigDecimal.isZero(toDecimal(invoice.paid_amount)) &&
  TRANSITIONS[invoice.status].includes("cancelled")
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

/** Past its due date (in the organisation's calendar) where the machine lets it become overdue; never a storno, which takes no payment. */
export const isOverdue = (invoice: Invoice, today: string): boolean =>
  invoice.kind !== "storno" && TRANSITIONS[invoice.status].includes("overdue") && invoice.due_date < today
