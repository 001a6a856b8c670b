/** The quote state machine as data: which transitions a person (or the expiry job) may make. */
import * as Either from "effect/Either"
import { TransitionNotAllowed } from "../Errors.js"
import type { QuoteStatus } from "./QuoteSchemas.js"

export type QuoteAction = "send" | "accept" | "reject" | "cancel" | "expire"

export const TRANSITIONS: Readonly<
  Record<QuoteAction, { readonly from: ReadonlyArray<QuoteStatus>; readonly to: QuoteStatus }>
> = {
  // A resend of a sent quote freezes a new revision.
  send: { from: ["draft", "sent"], to: "sent" },
  accept: { from: ["sent"], to: "accepted" },
  reject: { from: ["sent"], to: "rejected" },
  cancel: { from: ["draft", "sent"], to: "cancelled" },
  expire: { from: ["sent"], to: "expired" }
}

export const transition = (
  from: QuoteStatus,
  action: QuoteAction
): Either.Either<QuoteStatus, TransitionNotAllowed> => {
  const rule = TRANSITIONS[action]
  return rule.from.includes(from)
    ? Either.right(rule.to)
    : Either.left(new TransitionNotAllowed({ detail: { from, to: rule.to } }))
}
