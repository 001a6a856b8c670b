import { Errors } from "@crm/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"
import { handle, storable } from "../../src/edge/handle.js"
import { Reached } from "../../src/edge/Reached.js"
import type { Rendered } from "../../src/edge/render.js"
import * as Outage from "../../src/Outage.js"
import { type Context, type Route, route, write } from "../../src/Route.js"
import { incomingOf, principalOf } from "./fakes.js"

/** A route whose handler answers `answer` and keeps what it was told. */
const routeAnswering = (answer: (context: Context<unknown, unknown>) => Effect.Effect<unknown, Errors.NotFound>) => {
  const told: Array<Context<unknown, unknown>> = []
  const declared: Route = route({
    method: "POST",
    path: "/things/{id}",
    operationId: "thing",
    summary: "",
    tag: "things",
    guard: write,
    errors: ["not_found"],
    success: { status: 201, description: "" },
    handle: (context) => {
      told.push(context)
      return Effect.map(answer(context), (body) => ({ status: 201, body }))
    }
  })
  return { declared, told }
}

const principal = principalOf()
const reached = Reached.start(incomingOf(), "req-1")
  .matched("/things/{id}")
  .admitted(principal, { limit: 120, remaining: 4 })
const input = { raw: Buffer.from('{"n":1}'), query: { q: "x" }, body: { n: 1 } }
const run = (declared: Route) =>
  Effect.runSync(handle(declared, reached, { id: "a" }, input, Outage.make()) as Effect.Effect<Rendered>)

describe("handle", () => {
  it("tells the handler who calls, the path, the query, the body and the budget left, and renders its reply", () => {
    const { declared, told } = routeAnswering((context) => Effect.succeed({ echoed: context.body }))
    expect(run(declared)).toEqual({
      status: 201,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: '{"echoed":{"n":1}}'
    })
    expect(told).toEqual([{ principal, params: { id: "a" }, query: { q: "x" }, body: { n: 1 }, rateRemaining: 4 }])
  })

  it("renders the handler's refusal as an answer, so that a retry can replay it", () => {
    const { declared } = routeAnswering(() => Effect.fail(new Errors.NotFound({ detail: "no such thing" })))
    expect(run(declared)).toMatchObject({ status: 404, body: expect.stringContaining('"request_id":"req-1"') })
  })
})

describe("storable", () => {
  const { declared } = routeAnswering(() => Effect.succeed({}))

  it("keeps a text answer as it is", () => {
    const rendered = { status: 201, headers: { location: "/things/1" }, body: "{}" }
    expect(Effect.runSync(storable(declared)(rendered))).toEqual(rendered)
  })

  it("takes a write answered with bytes for a defect naming the route", () => {
    const exit = Effect.runSyncExit(storable(declared)({ status: 200, headers: {}, body: new Uint8Array([1]) }))
    expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("thing answers a write with bytes")
  })
})
