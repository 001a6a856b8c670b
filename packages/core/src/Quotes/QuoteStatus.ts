/**
 * The quote state machine as data, in the shape every machine of the core has
 * (`internal/StateMachine`), and the status each action a person (or the expiry job) takes moves to.
 */
import type * as Either from "effect/Either"
import type { TransitionNotAllowed } from "../Errors.js"
import { type Transitions, transitionIn } from "../internal/StateMachine.js"
import type { QuoteStatus } from "./QuoteSchemas.js"

export const TRANSITIONS: Transitions<QuoteStatus> = {
  draft: ["sent", "cancelled"],
  // A resend of a sent quote freezes a new revision.
  sent: ["sent", "accepted", "rejected", "cancelled", "expired"],
  accepted: [],
  rejected: [],
  expired: [],
  cancelled: []
}

export type QuoteAction = "send" | "accept" | "reject" | "cancel" | "expire"

export const TARGET: Readonly<Record<QuoteAction, QuoteStatus>> = {
  send: "sent",
  accept: "accepted",
  reject: "rejected",
  cancel: "cancelled",
  expire: "expired"
}

const move = transitionIn(TRANSITIONS)

export const transition = (from: QuoteStatus, action: QuoteAction): Either.Either<QuoteStatus, TransitionNotAllowed> =>
  move(from, TARGET[action])
