import { Errors, Quotes } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { QuoteStates } = Quotes
const STATUSES = ["draft", "sent", "accepted", "rejected", "expired", "cancelled"] as const
const ACTIONS = ["send", "accept", "reject", "cancel", "expire"] as const

describe("QuoteStates", () => {
  it("an action moves to its status exactly where the table allows, else transition_not_allowed {from, to}", () => {
    fc.assert(
      fc.property(fc.constantFrom(...STATUSES), fc.constantFrom(...ACTIONS), (from, action) => {
        const to = QuoteStates.TARGET[action]
        const outcome = QuoteStates.transition(from, action)
        if (QuoteStates.TRANSITIONS[from].includes(to)) expect(outcome).toEqual(Either.right(to))
        else {
          const error = Either.flip(outcome).pipe(Either.getOrThrow)
          expect(error).toBeInstanceOf(Errors.TransitionNotAllowed)
          expect(error.detail).toEqual({ from, to })
        }
      })
    )
  })

  it("a draft is sent or cancelled; a sent quote is resent, accepted, rejected, cancelled or expires; the rest are final", () => {
    const allowed = (from: (typeof STATUSES)[number]) =>
      ACTIONS.filter((action) => Either.isRight(QuoteStates.transition(from, action)))
    expect(allowed("draft")).toEqual(["send", "cancel"])
    expect(allowed("sent")).toEqual(["send", "accept", "reject", "cancel", "expire"])
    for (const final of ["accepted", "rejected", "expired", "cancelled"] as const) expect(allowed(final)).toEqual([])
  })
})
