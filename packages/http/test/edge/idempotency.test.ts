import { Errors, Idempotency } from "@crm/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fingerprint, idempotencyKeyOf, once } from "../../src/edge/idempotency.js"
import { type EdgeFailure, Reached, type Served } from "../../src/edge/Reached.js"
import * as Outage from "../../src/Outage.js"
import type { Reply } from "../../src/Reply.js"
import { read, route, write } from "../../src/Route.js"
import { incomingOf, principalOf } from "./fakes.js"

const refusal = [
  { path: "Idempotency-Key", message: "must be 1 to 255 printable ASCII characters", code: "invalid_header" }
]

describe("idempotencyKeyOf", () => {
  it("is no key when the header is absent", () => {
    expect(idempotencyKeyOf(undefined)).toEqual(Either.right(undefined))
  })

  it("takes printable ASCII up to 255 characters, and unwraps a structured-field string", () => {
    expect(idempotencyKeyOf("order-42")).toEqual(Either.right("order-42"))
    expect(idempotencyKeyOf('"order-42"')).toEqual(Either.right("order-42"))
    expect(idempotencyKeyOf("a".repeat(255))).toEqual(Either.right("a".repeat(255)))
    expect(idempotencyKeyOf(" ~")).toEqual(Either.right(" ~"))
  })

  it("refuses an empty, over-long or non-printable key as validation_failed naming the header", () => {
    for (const value of ["", '""', "a".repeat(256), `"${"a".repeat(256)}"`, "order\t42", "ordé", "a\u007f"]) {
      expect(idempotencyKeyOf(value)).toMatchObject({
        _tag: "Left",
        left: { code: "validation_failed", detail: refusal }
      })
    }
  })
})

describe("fingerprint", () => {
  // Small domains, so that two requests drawn are often the same one.
  const request = fc.record({
    method: fc.constantFrom("POST", "PUT", "PATCH", "DELETE"),
    path: fc.constantFrom("/api/v1/contacts", "/api/v1/contacts/1", "/api/v1/companies"),
    query: fc.constantFrom("", "?a=1", "?a=2", "?a=1&b=1"),
    body: fc.constantFrom(undefined, "", "{}", '{"name":"x"}')
  })
  type Request = typeof request extends fc.Arbitrary<infer R> ? R : never
  // A body is bytes the request read anew each time, never the same buffer.
  const of = (r: Request) =>
    fingerprint(
      r.method,
      new URL(`${r.path}${r.query}`, "http://localhost"),
      r.body === undefined ? undefined : Buffer.from(r.body)
    )
  const same = (a: Request, b: Request) =>
    a.method === b.method && a.path === b.path && a.query === b.query && (a.body ?? "") === (b.body ?? "")

  it("is the same for the same request, and differs when its method, path, query or body differ", () => {
    fc.assert(
      fc.property(request, request, (a, b) => {
        expect(of(a) === of(b)).toBe(same(a, b))
      })
    )
  })

  it("tells apart requests that differ in one part only", () => {
    const url = new URL("http://localhost/api/v1/contacts?a=1")
    const body = Buffer.from('{"name":"x"}')
    const base = fingerprint("POST", url, body)
    expect(fingerprint("PUT", url, body)).not.toBe(base)
    expect(fingerprint("POST", new URL("http://localhost/api/v1/companies?a=1"), body)).not.toBe(base)
    expect(fingerprint("POST", new URL("http://localhost/api/v1/contacts?a=2"), body)).not.toBe(base)
    expect(fingerprint("POST", new URL("http://localhost/api/v1/contacts"), body)).not.toBe(base)
    expect(fingerprint("POST", url, Buffer.from('{"name":"y"}'))).not.toBe(base)
    // No body and an empty one are the same request.
    expect(fingerprint("POST", url, undefined)).toBe(fingerprint("POST", url, Buffer.alloc(0)))
    expect(fingerprint("POST", new URL("http://localhost/api/v1/contacts?a=1"), Buffer.from(body))).toBe(base)
  })
})

/** The core's idempotency as a simple model: one answer kept per key, replayed to the same request. */
const remembering = () => {
  const kept = new Map<string, { fingerprint: string; payload: string }>()
  const asked: Array<{ scope: Idempotency.IdempotencyScope; fingerprint: string }> = []
  const service: Idempotency.Idempotency["Type"] = {
    purge: Effect.succeed(0),
    execute: <A, R>(
      scope: Idempotency.IdempotencyScope,
      fingerprint: string,
      run: Effect.Effect<Idempotency.Run<A>, never, R>
    ) =>
      Effect.suspend((): Effect.Effect<Idempotency.Outcome<A>, Errors.IdempotencyKeyReused, R> => {
        asked.push({ scope, fingerprint })
        const name = `${scope.keyId} ${scope.idempotencyKey}`
        const first = kept.get(name)
        if (first !== undefined) {
          return first.fingerprint === fingerprint
            ? Effect.succeed({ replayed: true, payload: first.payload })
            : Effect.fail(new Errors.IdempotencyKeyReused({ detail: "another request" }))
        }
        return Effect.map(run, (done) => {
          if (done.payload !== undefined) kept.set(name, { fingerprint, payload: done.payload })
          return { replayed: false, value: done.value }
        })
      })
  }
  return { asked, provide: Effect.provideService(Idempotency.Idempotency, service) }
}

describe("once", () => {
  const setup = (method: "GET" | "POST", reply: Reply | undefined, failure?: Errors.NotFound) => {
    const ran = { count: 0 }
    const thing = route({
      method,
      path: "/things",
      operationId: "things",
      summary: "",
      tag: "things",
      guard: method === "GET" ? read() : write,
      errors: ["not_found"],
      success: { status: 201, description: "" },
      handle: () =>
        Effect.suspend(() => {
          ran.count++
          return failure === undefined
            ? Effect.succeed(reply ?? { status: 201, body: { n: ran.count } })
            : Effect.fail(failure)
        })
    })
    const idempotency = remembering()
    const outage = Outage.make()
    const serve = (headers: Record<string, string>, body: string, admitted = true) => {
      const start = Reached.start(incomingOf(headers, "203.0.113.7", method), "req-1").matched("/things")
      const reached = admitted ? start.admitted(principalOf(), { limit: 120, remaining: 100 }) : start
      const url = new URL("http://localhost/things?x=1")
      const input = { raw: Buffer.from(body), query: undefined, body: JSON.parse(body) }
      return Effect.runPromiseExit(
        idempotency.provide(once(thing, reached, url, {}, input, outage)) as Effect.Effect<Served, EdgeFailure>
      )
    }
    return { ran, serve, asked: idempotency.asked }
  }
  const key = { "idempotency-key": "k-1" }

  it("runs a write under a key once: a retry of the same request gets the first answer, marked replayed", async () => {
    const { ran, serve, asked } = setup("POST", undefined)
    const first = await serve(key, '{"a":1}')
    const again = await serve(key, '{"a":1}')
    expect(first).toMatchObject({ _tag: "Success", value: { status: 201, body: '{"n":1}', replayed: false } })
    expect(again).toMatchObject({ _tag: "Success", value: { status: 201, body: '{"n":1}', replayed: true } })
    expect(ran.count).toBe(1)
    const principal = principalOf()
    expect(asked[0]).toEqual({
      scope: { keyId: principal.key.id, idempotencyKey: "k-1" },
      fingerprint: fingerprint("POST", new URL("http://localhost/things?x=1"), Buffer.from('{"a":1}'))
    })
  })

  it("refuses the same key with another request", async () => {
    const { ran, serve } = setup("POST", undefined)
    await serve(key, '{"a":1}')
    const other = await serve(key, '{"a":2}')
    expect(other).toMatchObject({ _tag: "Failure", cause: { error: { code: "idempotency_key_reused" } } })
    expect(ran.count).toBe(1)
  })

  it("replays a refusal as it was rendered and stored", async () => {
    const { ran, serve } = setup("POST", undefined, new Errors.NotFound({ detail: "no such thing" }))
    const first = await serve(key, "{}")
    const again = await serve(key, "{}")
    expect(first).toMatchObject({ _tag: "Success", value: { status: 404, replayed: false } })
    expect(again).toMatchObject({ _tag: "Success", value: { status: 404, replayed: true } })
    expect(ran.count).toBe(1)
  })

  it("runs every time a write without a key, a read, or a write no key was admitted for", async () => {
    for (const [method, headers, admitted] of [
      ["POST", {}, true],
      ["GET", key, true],
      ["POST", key, false]
    ] as const) {
      const { ran, serve, asked } = setup(method, undefined)
      await serve(headers, "{}", admitted)
      const again = await serve(headers, "{}", admitted)
      expect(again).toMatchObject({ _tag: "Success", value: { body: '{"n":2}', replayed: false } })
      expect(ran.count).toBe(2)
      expect(asked).toEqual([])
    }
  })

  it("refuses a malformed key before the handler runs", async () => {
    const { ran, serve } = setup("POST", undefined)
    const refused = await serve({ "idempotency-key": "" }, "{}")
    expect(refused).toMatchObject({ _tag: "Failure", cause: { error: { code: "validation_failed" } } })
    expect(ran.count).toBe(0)
  })

  it("takes a write answered with bytes under a key for a defect, since a retry could not replay it", async () => {
    const { serve } = setup("POST", { status: 200, bytes: new Uint8Array([1, 2]) })
    const exit = await serve(key, "{}")
    expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
  })
})
