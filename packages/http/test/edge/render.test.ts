import { Errors } from "@crm/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { describe, expect, it } from "vitest"
import { type EdgeFailure, Reached, type Served } from "../../src/edge/Reached.js"
import { answer, renderFailure, renderReply } from "../../src/edge/render.js"
import * as Outage from "../../src/Outage.js"
import { HttpFailure } from "../../src/Reply.js"
import { incomingOf, principalOf } from "./fakes.js"

const JSON_TYPE = "application/json; charset=utf-8"

/** Runs `effect` with what it logs kept, as level and message. */
const logging = <A>(effect: Effect.Effect<A>) => {
  const logged: Array<{ level: string; message: unknown }> = []
  const logger = Logger.make(({ logLevel, message }) => logged.push({ level: logLevel.label, message }))
  const value = Effect.runSync(Effect.provide(effect, Logger.replace(Logger.defaultLogger, logger)))
  return { value, logged }
}

const render = (cause: Cause.Cause<EdgeFailure>, outage = Outage.make()) =>
  logging(renderFailure(cause, "req-1", outage))

describe("renderReply", () => {
  it("answers 204 with no body and no content type, keeping the reply's own headers", () => {
    expect(renderReply({ status: 204, body: { ignored: true }, headers: { etag: '"1"' } }, undefined)).toEqual({
      status: 204,
      headers: { etag: '"1"' },
      body: ""
    })
  })

  it("writes a body as JSON through the route's encoder", () => {
    const encode = (value: unknown) => ({ ...(value as object), amount: Number((value as { amount: string }).amount) })
    expect(renderReply({ status: 201, body: { amount: "12.50" }, headers: { location: "/things/1" } }, encode)).toEqual(
      {
        status: 201,
        headers: { location: "/things/1", "content-type": JSON_TYPE },
        body: '{"amount":12.5}'
      }
    )
    expect(renderReply({ status: 200, body: { amount: "12.50" } }, undefined).body).toBe('{"amount":"12.50"}')
  })

  it("sends JSON text already made as it is", () => {
    const encode = () => {
      throw new Error("not to be encoded again")
    }
    expect(renderReply({ status: 200, json: '{"made":true}' }, encode)).toEqual({
      status: 200,
      headers: { "content-type": JSON_TYPE },
      body: '{"made":true}'
    })
  })

  it("keeps bytes and a stream as they are, under the reply's own headers", () => {
    const bytes = new Uint8Array([37, 80, 68, 70])
    expect(renderReply({ status: 200, bytes, headers: { "content-type": "application/pdf" } }, undefined)).toEqual({
      status: 200,
      headers: { "content-type": "application/pdf" },
      body: bytes
    })
    const stream = new ReadableStream<Uint8Array>()
    const streamed = renderReply(
      { status: 200, stream, headers: { "content-type": "application/x-ndjson" } },
      undefined
    )
    expect(streamed.status).toBe(200)
    expect(streamed.headers).toEqual({ "content-type": "application/x-ndjson" })
    expect(streamed.body).toBeInstanceOf(Response)
    expect((streamed.body as Response).body).toBe(stream)
  })
})

describe("renderFailure", () => {
  const bodyOf = (rendered: { readonly body: string }) => JSON.parse(rendered.body)

  it("answers a refusal with its table's status and the contract's error body", () => {
    const { value, logged } = render(Cause.fail(new Errors.NotFound({ detail: "no such contact" })))
    expect(value).toEqual({
      status: 404,
      headers: { "content-type": JSON_TYPE },
      body: JSON.stringify({ error: "not_found", detail: "no such contact", request_id: "req-1" })
    })
    expect(logged).toEqual([])
    expect(render(Cause.fail(new Errors.MissingScope({ scope: "write" }))).value).toMatchObject({
      status: 403,
      body: expect.stringContaining('"error":"missing_scope:write"')
    })
  })

  it("answers rate_limited with 429, when to retry and the budget it exceeded", () => {
    const limited = new Errors.RateLimited({ detail: "slow down", retryAfterSeconds: 7, limit: 120 })
    expect(render(Cause.fail(limited)).value).toMatchObject({
      status: 429,
      headers: {
        "content-type": JSON_TYPE,
        "retry-after": "7",
        "x-ratelimit-limit": "120",
        "x-ratelimit-remaining": "0"
      }
    })
  })

  it("asks a request whose key is still in progress to retry in a second", () => {
    const busy = new Errors.IdempotencyInProgress({ detail: "in progress" })
    expect(render(Cause.fail(busy)).value).toMatchObject({ status: 409, headers: { "retry-after": "1" } })
  })

  it("answers the store unreachable with 503 and when to retry, and tells the outage, never the cause", () => {
    const outage = Outage.make()
    const unavailable = new Errors.StorageUnavailable({ message: "connect ECONNREFUSED 127.0.0.1:5432" })
    const { value, logged } = render(Cause.fail(unavailable), outage)
    expect(value).toMatchObject({ status: 503, headers: { "retry-after": "5", "content-type": JSON_TYPE } })
    expect(bodyOf(value)).toEqual({ error: "service_unavailable", detail: unavailable.detail, request_id: "req-1" })
    expect(value.body).not.toContain("ECONNREFUSED")
    expect(outage.active()).toBe(true)
    expect(logged).toHaveLength(1)
    expect(logged[0]!.level).toBe("WARN")
  })

  it("answers a database lacking migrations with 503 and when to retry", () => {
    const behind = new Errors.NotMigrated({ missing: ["0042_secret_name"] })
    const { value } = render(Cause.fail(behind))
    expect(value).toMatchObject({ status: 503, headers: { "retry-after": "5" } })
    expect(value.body).not.toContain("0042")
  })

  it("answers the store failing otherwise with 500, logged with the request id and silent on the wire", () => {
    const broken = new Errors.StorageError({ message: "relation contacts_secret does not exist" })
    const { value, logged } = render(Cause.fail(broken))
    expect(value.status).toBe(500)
    expect(bodyOf(value)).toMatchObject({ error: "internal_error", request_id: "req-1" })
    expect(value.body).not.toContain("contacts_secret")
    expect(logged).toHaveLength(1)
    expect(logged[0]!.level).toBe("ERROR")
    expect(JSON.stringify(logged[0]!.message)).toContain("req-1")
    expect(JSON.stringify(logged[0]!.message)).toContain("contacts_secret")
  })

  it("answers a defect with 500 internal_error, logged, its message kept off the wire", () => {
    const { value, logged } = render(Cause.die(new Error("cannot read properties of undefined (reading 'secret')")))
    expect(value.status).toBe(500)
    expect(bodyOf(value).error).toBe("internal_error")
    expect(value.body).not.toContain("secret")
    expect(logged.map((line) => line.level)).toEqual(["ERROR"])
  })

  it("keeps the headers an HttpFailure carries", () => {
    const refused = HttpFailure.of("method_not_allowed", "allowed: GET, PATCH", { allow: "GET, PATCH" })
    expect(render(Cause.fail(refused)).value).toEqual({
      status: 405,
      headers: { "content-type": JSON_TYPE, allow: "GET, PATCH" },
      body: JSON.stringify({ error: "method_not_allowed", detail: "allowed: GET, PATCH", request_id: "req-1" })
    })
  })

  it("takes only codes of the status table; one past a cast is a defect, not a guess", () => {
    const outage = Outage.make()
    renderFailure(Cause.fail({ code: "not_found" as const, detail: 1 }), "req-1", outage)
    // @ts-expect-error a code the status table does not know cannot reach rendering
    renderFailure(Cause.fail({ code: "no_such_code" as const, detail: 1 }), "req-1", outage)
    const cast = { code: "no_such_code", detail: 1 } as unknown as EdgeFailure
    const { value, logged } = render(Cause.fail(cast))
    expect(value.status).toBe(500)
    expect(bodyOf(value).error).toBe("internal_error")
    expect(logged).toHaveLength(1)
  })
})

describe("answer", () => {
  const served: Served = { status: 201, headers: { location: "/things/1" }, body: "{}", replayed: false }
  const start = Reached.start(incomingOf(), "req-1").matched("/things")
  const admitted = start.admitted(principalOf(), { limit: 120, remaining: 9 })

  it("adds the request's id to what was served", () => {
    expect(answer(start, served)).toEqual({
      status: 201,
      headers: { location: "/things/1", "x-request-id": "req-1" },
      body: "{}"
    })
  })

  it("adds the budget only for an admitted key", () => {
    expect(answer(admitted, served).headers).toEqual({
      location: "/things/1",
      "x-request-id": "req-1",
      "x-ratelimit-limit": "120",
      "x-ratelimit-remaining": "9"
    })
  })

  it("marks a replay, and only a replay", () => {
    expect(answer(admitted, { ...served, replayed: true }).headers).toHaveProperty("idempotency-replayed", "true")
    expect(answer(admitted, served).headers).not.toHaveProperty("idempotency-replayed")
  })

  it("answers a failure with the request's id and, after admission, the budget", () => {
    const refused = new Errors.MissingScope({ scope: "write" })
    const rendered = logging(renderFailure(Cause.fail(refused), admitted.requestId, Outage.make())).value
    const value = answer(admitted, { ...rendered, replayed: false })
    expect(value).toMatchObject({
      status: 403,
      headers: { "x-request-id": "req-1", "x-ratelimit-limit": "120", "x-ratelimit-remaining": "9" }
    })
    expect(value.headers).not.toHaveProperty("idempotency-replayed")
  })
})
