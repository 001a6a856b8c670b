import { Errors } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { budgetHeaders, permits } from "../../src/edge/budget.js"
import { quotesWrite, read, route, write } from "../../src/Route.js"
import { principalOf } from "./fakes.js"

const routeOf = (method: "GET" | "POST") =>
  route({
    method,
    path: "/things",
    operationId: "things",
    summary: "",
    tag: "things",
    guard: read(),
    errors: [],
    success: { status: 200, description: "" },
    handle: () => Effect.succeed({ status: 200 })
  })

describe("budgetHeaders", () => {
  it("tells the key its limit and what is left of it", () => {
    expect(budgetHeaders({ limit: 120, remaining: 0 })).toEqual({
      "x-ratelimit-limit": "120",
      "x-ratelimit-remaining": "0"
    })
  })
})

describe("permits", () => {
  it("lets a key with the route's scope read and write", () => {
    expect(Either.isRight(permits(routeOf("GET"), read(), principalOf({ scopes: ["read"] })))).toBe(true)
    expect(Either.isRight(permits(routeOf("POST"), write, principalOf({ scopes: ["read", "write"] })))).toBe(true)
  })

  it("refuses a key without the route's scope, naming the scope in the code", () => {
    const refused = permits(routeOf("POST"), quotesWrite, principalOf({ scopes: ["read", "write"] }))
    expect(refused).toMatchObject({ _tag: "Left", left: { code: "missing_scope:quotes:write" } })
    expect(Either.isLeft(refused) && refused.left).toBeInstanceOf(Errors.MissingScope)
  })

  it("refuses a write on a read-only plan, but not a read", () => {
    const principal = principalOf({ scopes: ["read", "write"], readOnly: true })
    expect(permits(routeOf("POST"), write, principal)).toMatchObject({ _tag: "Left", left: { code: "plan_refused" } })
    expect(Either.isRight(permits(routeOf("GET"), read(), principal))).toBe(true)
  })
})
