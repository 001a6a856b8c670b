/**
 * Serves the pipeline (`App.makeApp`) on a `node:http` server: each request runs as one fiber of
 * the layer's runtime, and its `Answer` is written back as it is. The server listens only once the
 * layer's dependencies are built, and stops taking requests when its scope closes; `listen` also
 * takes another app later, so that a server can listen before its store is open (`Opening`). A
 * request node refuses before the pipeline sees it (too long, not HTTP, too slow) gets the
 * pipeline's error body.
 */
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http"
import type { AddressInfo } from "node:net"
import { type Duplex, pipeline, Readable } from "node:stream"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { type Answer, errorBody, header, MAX_HEADER_BYTES, MAX_URL_BYTES, requestIdOf } from "./Edge.js"
import { type ErrorCode, STATUS_BY_CODE } from "./ErrorStatus.js"
import * as TurnScheduler from "./TurnScheduler.js"

/** Where the server listens (the port is the one bound, so port 0 reads back as the real one). */
export class Address extends Context.Tag("@crm/http/Listener/Address")<
  Address,
  { readonly host: string; readonly port: number }
>() {}

export interface ListenOptions {
  readonly port: number
  readonly host: string
  /**
   * `false` serves requests with Effect's tracer off, so that named operations open no spans: for a
   * server that exports no traces, where a span per operation is only cost. Left out, requests
   * trace as the layer's runtime does.
   */
  readonly tracing?: boolean
}

const write = (response: ServerResponse, answer: Answer) => {
  if (typeof answer.body === "function") return answer.body(response)
  if (typeof answer.body === "string" || answer.body instanceof Uint8Array) {
    // `writeHead` fixes the headers at once, so without a Content-Length node would frame every
    // body as chunked: more bytes and writes for a body whose length is known. A 204 has none.
    if (answer.status === 204) {
      response.writeHead(204, answer.headers)
      response.end()
    } else {
      // Merged as `App` merges headers, not spread (see there).
      response.writeHead(
        answer.status,
        Object.assign({}, answer.headers, { "content-length": Buffer.byteLength(answer.body) })
      )
      response.end(answer.body)
    }
    return
  }
  const web = answer.body
  const headers: Record<string, string> = {}
  web.headers.forEach((value, name) => {
    headers[name] = value
  })
  response.writeHead(answer.status, Object.assign(headers, answer.headers))
  if (web.body === null) response.end()
  // A client gone mid-body cancels the stream, so that its producer (an export's snapshot) ends too.
  else pipeline(Readable.fromWeb(web.body as NodeReadableStream), response, () => {})
}

/**
 * The pipeline renders every failure itself; this is for a defect in it or in writing its answer,
 * never a client's error. Like every other error it carries a request id, the one the log names.
 */
const crashed = (incoming: IncomingMessage, response: ServerResponse): string => {
  const requestId = requestIdOf(header(incoming.headers, "x-request-id"))
  if (response.headersSent) response.destroy()
  else {
    const body = errorBody(
      "internal_error",
      "an unexpected error occurred; quote the request id when reporting it",
      requestId
    )
    response
      .writeHead(500, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(body),
        "x-request-id": requestId
      })
      .end(body)
  }
  return requestId
}

/** Node's defaults, stated so that what the OpenAPI document says holds whatever node's flags are. */
const HEADERS_TIMEOUT_MS = 60_000
const REQUEST_TIMEOUT_MS = 300_000
/** At shutdown, how long requests under way have to be answered before their connections are cut. */
const DRAIN_MS = 10_000
/** How often, while draining, connections whose request has been answered are closed. */
const DRAIN_CHECK_MS = 50

/** How long a refused client has to read its answer before its connection is cut. */
const LINGER_MS = 1000

const REQUEST_TARGET = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ +(\S*)/
const REQUEST_ID_HEADER = /\r\nx-request-id:[ \t]*([^\r\n]*?)[ \t]*\r\n/i

/**
 * Why node refused a request, from its parser's error and the bytes it held: the start of the
 * request when the request line or the headers overflowed, which tells a long URL from long headers.
 */
export const refusalOf = (error: NodeJS.ErrnoException, head: string): { code: ErrorCode; detail: string } => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return (REQUEST_TARGET.exec(head)?.[1]?.length ?? 0) > MAX_URL_BYTES
        ? { code: "uri_too_long", detail: `the URL exceeds the limit of ${MAX_URL_BYTES} bytes` }
        : {
            code: "headers_too_large",
            detail: `the request line and headers exceed the limit of ${MAX_HEADER_BYTES} bytes`
          }
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { code: "payload_too_large", detail: "the chunk extensions of the body are too large" }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        code: "request_timeout",
        detail: `the headers did not arrive within ${HEADERS_TIMEOUT_MS / 1000} s, or the request within ${REQUEST_TIMEOUT_MS / 1000} s`
      }
    default:
      return { code: "bad_request", detail: `the request is not valid HTTP/1.1: ${error.message}` }
  }
}

/**
 * Node's `clientError`: a request that never reaches the pipeline. With a listener here node
 * writes nothing itself, so the answer is a whole HTTP/1.1 response written to the socket, after
 * which the connection closes.
 */
const refuse = (error: NodeJS.ErrnoException & { readonly rawPacket?: Buffer }, socket: Duplex) => {
  // Answered already: the parser reports each further chunk of the same request again.
  if (socket.writableEnded) return
  // As node itself does: no answer into a connection that is gone, or over a response under way.
  // `_httpMessage` is node's private link from a socket to its response; node's own default
  // `clientError` handler reads it for this very check (lib/_http_server.js), and no public API
  // says whether a response is under way on a socket. Removing it costs a second answer written
  // into a response already started. No upstream issue asks for a public one.
  const inFlight = (socket as { readonly _httpMessage?: ServerResponse | null })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  // latin1 reads a byte as one character: no decoding work, nothing lost for the ASCII looked at.
  const head = error.rawPacket?.toString("latin1") ?? ""
  const { code, detail } = refusalOf(error, head)
  const status = STATUS_BY_CODE[code]
  const requestId = requestIdOf(REQUEST_ID_HEADER.exec(head)?.[1])
  const body = errorBody(code, detail, requestId)
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      "connection: close\r\n\r\n" +
      body
  )
  // Cutting the connection at once could reset it before the client has read the answer, while it
  // is still sending the request; a client that neither reads nor closes is cut after a while.
  setTimeout(() => socket.destroy(), LINGER_MS).unref()
}

/** A server listening: where, and how to hand it another app (see `Opening`). */
export interface Listening {
  readonly address: { readonly host: string; readonly port: number }
  /** Every request from now on is answered by `app`, in the runtime of the effect that calls this. */
  readonly serve: <R>(
    app: (incoming: IncomingMessage) => Effect.Effect<Answer, never, R>
  ) => Effect.Effect<void, never, R>
}

/** Node's handler of a request: `app` run as one fiber of the caller's runtime, its answer written. */
const handlerOf = <R>(app: (incoming: IncomingMessage) => Effect.Effect<Answer, never, R>, options: ListenOptions) =>
  Effect.map(Effect.runtime<R>(), (given) => {
    const traced = options.tracing === false ? Runtime.setFiberRef(given, FiberRef.currentTracerEnabled, false) : given
    // Request fibers run together once per turn of the event loop: see `TurnScheduler` for why.
    const runtime = Runtime.setFiberRef(traced, FiberRef.currentScheduler, TurnScheduler.make())
    const run = Runtime.runCallback(runtime)
    return (incoming: IncomingMessage, response: ServerResponse) => {
      // A client gone before its answer is not a reason to interrupt the request: a request still
      // reading its body fails at once (see `App`), and one past it finishes its unit of work, its
      // answer unread. Interrupting a statement on PostgreSQL sends a cancel through the pool, so
      // when every pooled connection belonged to a request whose client had gone (a load
      // balancer's timeout, a benchmark's end), every cancel waited for a connection that only a
      // cancel could free, and the server stood still for the cancels' five-second timeout.
      const fail = (cause: Cause.Cause<unknown>) => {
        const requestId = crashed(incoming, response)
        run(Effect.logError("request failed", { request_id: requestId, cause: Cause.pretty(cause) }))
      }
      // The fiber writes its answer itself and exits with nothing. Handed over as the fiber's exit
      // value instead, a page's rendered body stayed reachable past two young collections (what
      // held the finished fiber was not found) and was promoted to V8's old generation: 20 KB a
      // list request on PGlite, a full collection every second that held every request in flight
      // for about 50 ms: 7 % of the requests (docs/benchmarks.md, issue 38's fifth pass).
      const answered = Effect.flatMap(app(incoming), (answer) =>
        Effect.sync(() => {
          // Answered before its body was all read (refused on a line of an import, a media type,
          // a key): the rest is read and dropped, as node drops a body no one started to read.
          // Left in the socket, it would stall the connection and its next request would be
          // reset; reading it is bounded by the request timeout.
          if (!incoming.complete) incoming.resume()
          write(response, answer)
        })
      )
      run(answered, {
        onExit: (exit) => {
          if (Exit.isFailure(exit) && !Exit.isInterrupted(exit)) fail(exit.cause)
        }
      })
    }
  })

/** Listens until the scope closes, answering with `app` until `serve` hands it another. */
export const listen = <R>(
  app: (incoming: IncomingMessage) => Effect.Effect<Answer, never, R>,
  options: ListenOptions
): Effect.Effect<Listening, never, R | Scope.Scope> =>
  Effect.gen(function* () {
    let handle = yield* handlerOf(app, options)
    const limits = {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS
    }
    const server = createServer(limits, (incoming, response) => handle(incoming, response))
    server.on("clientError", refuse)
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        const refused = (error: Error) =>
          resume(Effect.dieMessage(`cannot listen on ${options.host}:${options.port}: ${error.message}`))
        server.once("error", refused)
        server.listen(options.port, options.host, () => {
          server.off("error", refused)
          resume(Effect.void)
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          // No new connections; idle keep-alive ones closed now, and each busy one as soon as its
          // request is answered (node keeps it open for the next request otherwise), so that a
          // request under way at shutdown gets its answer. Past the bound the rest are cut.
          const idle = setInterval(() => server.closeIdleConnections(), DRAIN_CHECK_MS)
          const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS)
          server.close(() => {
            clearInterval(idle)
            clearTimeout(cut)
            resume(Effect.void)
          })
          server.closeIdleConnections()
        })
    )
    const bound = server.address() as AddressInfo
    yield* Effect.logInfo(`Listening on http://${options.host}:${bound.port}`)
    return {
      address: { host: options.host, port: bound.port },
      serve: (next) =>
        Effect.map(handlerOf(next, options), (handler) => {
          handle = handler
        })
    } satisfies Listening
  })

export const layer = <R>(
  app: (incoming: IncomingMessage) => Effect.Effect<Answer, never, R>,
  options: ListenOptions
): Layer.Layer<Address, never, R> =>
  Layer.scoped(
    Address,
    Effect.map(listen(app, options), (listening) => listening.address)
  )
