import { Errors, Returns } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { ReturnStates } = Returns
const STATUSES = ["requested", "approved", "rejected", "received", "refunded", "cancelled"] as const
type Status = (typeof STATUSES)[number]
const status = fc.constantFrom(...STATUSES)

describe("ReturnStates", () => {
  it("allows exactly the listed moves and refuses every other one with transition_not_allowed {from, to}", () => {
    fc.assert(
      fc.property(status, status, (from, to) => {
        const outcome = ReturnStates.transition(from, to)
        if (ReturnStates.TRANSITIONS[from].includes(to)) {
          expect(outcome).toEqual(Either.right(to))
        } else {
          const error = Either.flip(outcome).pipe(Either.getOrThrow)
          expect(error).toBeInstanceOf(Errors.TransitionNotAllowed)
          expect(error.detail).toEqual({ from, to })
        }
      })
    )
  })

  it("is final exactly in rejected, refunded and cancelled", () => {
    expect(STATUSES.filter((s) => ReturnStates.TRANSITIONS[s].length === 0)).toEqual([
      "rejected",
      "refunded",
      "cancelled"
    ])
  })

  it("refunds only goods that were approved and then received", () => {
    fc.assert(
      fc.property(fc.array(status, { maxLength: 20 }), (requests) => {
        let current: Status = "requested"
        const visited: Array<Status> = [current]
        for (const to of requests) {
          const next: Status = Either.getOrElse(ReturnStates.transition(current, to), () => current)
          if (next !== current) visited.push(next)
          current = next
        }
        if (current === "refunded") expect(visited).toEqual(["requested", "approved", "received", "refunded"])
        // Nothing leaves a final status.
        const firstFinal = visited.findIndex((s) => ReturnStates.TRANSITIONS[s].length === 0)
        if (firstFinal >= 0) expect(firstFinal).toBe(visited.length - 1)
      })
    )
  })
})
