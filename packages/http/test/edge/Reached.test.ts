import { describe, expect, it } from "vitest"
import { Reached } from "../../src/edge/Reached.js"
import { incomingOf, principalOf } from "./fakes.js"

describe("Reached", () => {
  it("starts with nothing learnt, and reads the method off the request (GET when node gives none)", () => {
    const start = Reached.start(incomingOf({}, "203.0.113.7", "PATCH"), "req-1")
    expect(start).toMatchObject({ requestId: "req-1", route: undefined, principal: undefined, budget: undefined })
    expect(start.method).toBe("PATCH")
    const noMethod = { headers: {}, socket: {} } as unknown as Parameters<typeof Reached.start>[0]
    expect(Reached.start(noMethod, "req-2").method).toBe("GET")
  })

  it("matched makes a new request reached with the route, leaving the one it came from as it was", () => {
    const start = Reached.start(incomingOf(), "req-1")
    const matched = start.matched("/api/v1/contacts/{id}")
    expect(matched).not.toBe(start)
    expect(matched.route).toBe("/api/v1/contacts/{id}")
    expect(start.route).toBeUndefined()
    expect(matched).toMatchObject({ incoming: start.incoming, requestId: "req-1", started: start.started })
  })

  it("called makes a new request reached with a caller who has no key, keeping the route", () => {
    const matched = Reached.start(incomingOf(), "req-1").matched("/auth/v1/sign-in")
    const visitor = { address: "203.0.113.7", device: "Firefox" }
    const called = matched.called(visitor)
    expect(called).not.toBe(matched)
    expect(called).toMatchObject({ route: "/auth/v1/sign-in", caller: visitor, principal: undefined })
    expect(matched.caller).toBeUndefined()
    expect(called.matched("/other").caller).toBe(visitor)
  })

  it("admitted makes a new request reached with the key and its budget, keeping the route", () => {
    const matched = Reached.start(incomingOf(), "req-1").matched("/api/v1/contacts")
    const principal = principalOf()
    const admitted = matched.admitted(principal, { limit: 120, remaining: 119 })
    expect(admitted).not.toBe(matched)
    expect(admitted).toMatchObject({ route: "/api/v1/contacts", principal, budget: { limit: 120, remaining: 119 } })
    expect(matched.principal).toBeUndefined()
    expect(matched.budget).toBeUndefined()
    expect(admitted.started).toBe(matched.started)
  })
})
