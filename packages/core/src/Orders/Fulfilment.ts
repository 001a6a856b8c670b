/**
 * The order fulfilment machine as data (the contract's table) and its pure `transition`. A move
 * to the state the order is already in is not in the table, so it is refused like any other.
 */
import * as Either from "effect/Either"
import { invalidField, TransitionNotAllowed, type ValidationFailed } from "../Errors.js"
import { type Transitions, transitionIn } from "../internal/StateMachine.js"
import type { OrderFulfilment as Fulfilment, OrderPaymentStatus as PaymentStatus } from "./OrderSchemas.js"

export const TRANSITIONS: Transitions<Fulfilment> = {
  new: ["confirmed", "cancelled"],
  confirmed: ["shipped", "cancelled"],
  shipped: ["delivered"],
  delivered: [],
  cancelled: []
}

/** What the move depends on besides the two states, as the order will stand once the PATCH applies. */
export interface Facts {
  readonly payment_status: PaymentStatus
  readonly tracking_url: string | null
}

/** An order whose card payment is still pending is neither confirmed nor shipped. */
const WAITS_FOR_PAYMENT: ReadonlyArray<Fulfilment> = ["confirmed", "shipped"]

export const transition = (
  from: Fulfilment,
  to: Fulfilment,
  facts: Facts
): Either.Either<Fulfilment, TransitionNotAllowed | ValidationFailed> =>
  Either.flatMap(
    transitionIn(TRANSITIONS)(from, to),
    (next): Either.Either<Fulfilment, TransitionNotAllowed | ValidationFailed> =>
      WAITS_FOR_PAYMENT.includes(next) && facts.payment_status === "pending"
        ? Either.left(new TransitionNotAllowed({ detail: { from, to, reason: "payment_pending" } }))
        : next === "shipped" && facts.tracking_url === null
          ? Either.left(invalidField("tracking_url", "required when moving to shipped", "required"))
          : Either.right(next)
  )

/** Cancelling gives back the stock the sale took. */
export const returnsStock = (to: Fulfilment): boolean => to === "cancelled"

/** Shipping mails the buyer the tracking link. */
export const mailsBuyer = (to: Fulfilment): boolean => to === "shipped"
