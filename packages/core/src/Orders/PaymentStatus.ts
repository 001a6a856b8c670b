/**
 * An order's payment status as data. The contract names pending → paid (emitting `order.paid`)
 * and pending → failed; the rest is this kernel's choice: an order without payment may start one
 * or be paid outright, a failed payment may be retried or settled otherwise, and paid is final
 * (refunds are not modelled).
 */
import type * as Either from "effect/Either"
import type { TransitionNotAllowed } from "../Errors.js"
import { type Transitions, transitionIn } from "../internal/StateMachine.js"
import type { OrderPaymentStatus as PaymentStatus } from "./OrderSchemas.js"

export const TRANSITIONS: Transitions<PaymentStatus> = {
  none: ["pending", "paid"],
  pending: ["paid", "failed"],
  failed: ["pending", "paid"],
  paid: []
}

export const transition: (
  from: PaymentStatus,
  to: PaymentStatus
) => Either.Either<PaymentStatus, TransitionNotAllowed> = transitionIn(TRANSITIONS)

/** `order.paid` goes out whenever an order becomes paid, which happens once since paid is final. */
export const becamePaid = (from: PaymentStatus | null, to: PaymentStatus): boolean => from !== "paid" && to === "paid"
