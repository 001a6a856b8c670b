/**
 * The listener under a client that goes away: the request it sent is finished, not interrupted
 * (interrupting a PostgreSQL statement needs a pooled connection for the cancel, which a burst of
 * departed clients can leave none of), and its answer is dropped without harm.
 */
import { connect } from "node:net"
import { type Edge, Listener } from "@crm/http"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { expect, it } from "vitest"

it("finishes a request whose client went away before its answer", async () => {
  const outcome = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const started = yield* Deferred.make<void>()
        const clientGone = yield* Deferred.make<void>()
        const finished = yield* Deferred.make<"finished" | "interrupted">()
        const app = () =>
          Effect.gen(function* () {
            yield* Deferred.succeed(started, undefined)
            // The work goes on past the client's departure.
            yield* Deferred.await(clientGone)
            yield* Deferred.succeed(finished, "finished")
            return { status: 200, headers: {}, body: "{}" }
          }).pipe(Effect.onInterrupt(() => Deferred.succeed(finished, "interrupted")))
        const context = yield* Layer.build(Listener.layer(app, { host: "127.0.0.1", port: 0 }))
        const { port } = yield* Effect.provide(Listener.Address, context)
        const socket = connect(port, "127.0.0.1")
        socket.on("error", () => {})
        socket.write("GET /anything HTTP/1.1\r\nHost: localhost\r\n\r\n")
        yield* Deferred.await(started)
        yield* Effect.async<void>((resume) => {
          socket.once("close", () => resume(Effect.void))
          socket.destroy()
        })
        // Give the server's side of the socket time to see the close before the work goes on.
        yield* Effect.sleep("100 millis")
        yield* Deferred.succeed(clientGone, undefined)
        return yield* Deferred.await(finished)
      })
    )
  )
  expect(outcome).toBe("finished")
})

it("names the refusals node makes before a request reaches the pipeline", () => {
  const refused = (code: string, head = "") =>
    Listener.refusalOf(Object.assign(new Error("Parse Error"), { code }), head).code
  expect(refused("HPE_HEADER_OVERFLOW", `GET /${"a".repeat(9000)}`)).toBe("uri_too_long")
  expect(refused("HPE_HEADER_OVERFLOW", `GET /contacts HTTP/1.1\r\nX-Big: ${"b".repeat(20_000)}`)).toBe(
    "headers_too_large"
  )
  // A later chunk of the request, without its request line.
  expect(refused("HPE_HEADER_OVERFLOW", "b".repeat(20_000))).toBe("headers_too_large")
  expect(refused("ERR_HTTP_REQUEST_TIMEOUT")).toBe("request_timeout")
  expect(refused("HPE_CHUNK_EXTENSIONS_OVERFLOW")).toBe("payload_too_large")
  expect(refused("HPE_INVALID_METHOD")).toBe("bad_request")
})

/** `app` listening on a free port, quiet, and the status, request id and body of a GET to each path. */
const askEach = (
  app: (incoming: { readonly url?: string | undefined }) => Effect.Effect<Edge.Answer>,
  requests: ReadonlyArray<{ readonly path: string; readonly headers?: Record<string, string> }>
) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(
          Listener.layer(app, { host: "127.0.0.1", port: 0 }).pipe(
            Layer.provide(Logger.replace(Logger.defaultLogger, Logger.none))
          )
        )
        const { port } = yield* Effect.provide(Listener.Address, context)
        return yield* Effect.forEach(requests, ({ path, headers }) =>
          Effect.promise(async () => {
            const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: headers ?? {} })
            return {
              status: response.status,
              requestId: response.headers.get("x-request-id"),
              body: await response.text()
            }
          })
        )
      })
    )
  )

const INTERNAL_ERROR_DETAIL = "an unexpected error occurred; quote the request id when reporting it"

it("answers a pipeline that dies with a 500 carrying a request id, in the body and the header", async () => {
  const answers = await askEach(
    () => Effect.die(new Error("the pipeline itself broke")),
    [{ path: "/anything" }, { path: "/anything", headers: { "x-request-id": "client-chosen-1" } }]
  )
  for (const answer of answers) {
    expect(answer.status).toBe(500)
    expect(JSON.parse(answer.body)).toEqual({
      error: "internal_error",
      detail: INTERNAL_ERROR_DETAIL,
      request_id: answer.requestId
    })
  }
  expect(answers[0]!.requestId).toMatch(/^[0-9a-f-]{36}$/)
  expect(answers[1]!.requestId).toBe("client-chosen-1")
})

it("answers with a 500 carrying a request id when its answer cannot be written, and goes on serving", async () => {
  // node refuses a header value with a line break as the head is written: the write fails, not
  // the pipeline.
  const [broken, fine] = await askEach(
    (incoming) =>
      Effect.succeed({
        status: 200,
        headers: incoming.url === "/broken" ? { "x-broken": "a\nb" } : {},
        body: "{}"
      }),
    [{ path: "/broken" }, { path: "/fine" }]
  )
  expect(broken!.status).toBe(500)
  expect(JSON.parse(broken!.body)).toEqual({
    error: "internal_error",
    detail: INTERNAL_ERROR_DETAIL,
    request_id: broken!.requestId
  })
  expect(fine).toMatchObject({ status: 200, body: "{}" })
})
