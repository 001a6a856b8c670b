import { Tickets } from "@crm/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { TicketSla } = Tickets
const PRIORITIES = ["low", "normal", "high", "urgent"] as const
const STATUSES = ["open", "pending", "solved", "closed"] as const
const HOUR = 3_600_000

const instant = fc.integer({ min: Date.parse("2000-01-01T00:00:00Z"), max: Date.parse("2100-01-01T00:00:00Z") })
const iso = (ms: number) => new Date(ms).toISOString()

describe("TicketSla", () => {
  it("sets the due time the priority's target hours after opening, sooner for more urgent tickets", () => {
    fc.assert(
      fc.property(instant, (opened) => {
        const due = PRIORITIES.map((priority) => Date.parse(TicketSla.dueAt(priority, iso(opened))))
        PRIORITIES.forEach((priority, i) => {
          expect(due[i]! - opened).toBe(TicketSla.TARGET_HOURS[priority] * HOUR)
        })
        for (let i = 1; i < due.length; i++) expect(due[i]!).toBeLessThanOrEqual(due[i - 1]!)
      })
    )
  })

  it("counts a ticket breached exactly when its due time has passed while it is open or pending", () => {
    fc.assert(
      fc.property(fc.constantFrom(...STATUSES), fc.option(instant, { nil: null }), instant, (status, due, now) => {
        const breached = TicketSla.isBreached({ status, sla_due_at: due === null ? null : iso(due) }, iso(now))
        expect(breached).toBe(due !== null && (status === "open" || status === "pending") && due < now)
      })
    )
  })

  it("is not breached at the due instant itself, and is one millisecond later", () => {
    fc.assert(
      fc.property(fc.constantFrom("open" as const, "pending" as const), instant, (status, due) => {
        const ticket = { status, sla_due_at: iso(due) }
        expect(TicketSla.isBreached(ticket, iso(due))).toBe(false)
        expect(TicketSla.isBreached(ticket, iso(due + 1))).toBe(true)
        // Solving or closing stops the clock, however late.
        expect(TicketSla.isBreached({ ...ticket, status: "solved" }, iso(due + 1))).toBe(false)
        expect(TicketSla.isBreached({ ...ticket, status: "closed" }, iso(due + 1))).toBe(false)
      })
    )
  })
})
