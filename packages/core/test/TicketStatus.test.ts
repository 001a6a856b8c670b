import { Errors, Tickets } from "@crm/core"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { TicketStates } = Tickets
const STATUSES = ["open", "pending", "solved", "closed"] as const
const status = fc.constantFrom(...STATUSES)

describe("TicketStates", () => {
  it("allows exactly the listed moves and refuses every other one with transition_not_allowed {from, to}", () => {
    fc.assert(
      fc.property(status, status, (from, to) => {
        const outcome = TicketStates.transition(from, to)
        if (TicketStates.TRANSITIONS[from].includes(to)) {
          expect(outcome).toEqual(Either.right(to))
        } else {
          const error = Either.flip(outcome).pipe(Either.getOrThrow)
          expect(error).toBeInstanceOf(Errors.TransitionNotAllowed)
          expect(error.code).toBe("transition_not_allowed")
          expect(error.detail).toEqual({ from, to })
        }
      })
    )
  })

  it("works a ticket between open and pending, reopens a solved one, and never reopens a closed one", () => {
    const allowed = (from: (typeof STATUSES)[number], to: (typeof STATUSES)[number]) =>
      Either.isRight(TicketStates.transition(from, to))
    expect(allowed("open", "pending") && allowed("pending", "open")).toBe(true)
    expect(allowed("open", "solved") && allowed("pending", "solved")).toBe(true)
    expect(allowed("solved", "open")).toBe(true)
    expect(allowed("solved", "pending")).toBe(false)
    for (const to of STATUSES) expect(allowed("closed", to)).toBe(false)
    expect(STATUSES.filter((s) => TicketStates.TRANSITIONS[s].length === 0)).toEqual(["closed"])
  })

  it("can close a ticket from every status but closed, and reaches every status from open", () => {
    const reachable = (from: (typeof STATUSES)[number]) => {
      const seen = new Set<string>([from])
      const queue = [from]
      while (queue.length > 0) {
        for (const next of TicketStates.TRANSITIONS[queue.shift()!]) {
          if (!seen.has(next)) {
            seen.add(next)
            queue.push(next)
          }
        }
      }
      return seen
    }
    expect([...reachable("open")].sort()).toEqual([...STATUSES].sort())
    for (const from of STATUSES)
      if (from !== "closed") expect(TicketStates.transition(from, "closed")).toEqual(Either.right("closed"))
  })

  it("once closed, a ticket stays closed whatever moves are asked for", () => {
    fc.assert(
      fc.property(fc.array(status, { maxLength: 30 }), (requests) => {
        let current: (typeof STATUSES)[number] = "open"
        let closed = false
        for (const to of requests) {
          current = Either.getOrElse(TicketStates.transition(current, to), () => current)
          if (closed) expect(current).toBe("closed")
          closed ||= current === "closed"
        }
      })
    )
  })
})
