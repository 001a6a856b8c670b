/**
 * Serves the pipeline (`App.makeApp`) on a `node:http` server: each request runs as one fiber of
 * the layer's runtime, and its `Answer` is written back as it is. The server listens only once the
 * layer's dependencies are built, and stops taking requests when its scope closes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import type { Answer } from "./App.js"

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
  if (typeof answer.body === "string") {
    // `writeHead` fixes the headers at once, so without a Content-Length node would frame every
    // body as chunked: more bytes and writes for a body whose length is known. A 204 has none.
    if (answer.status === 204) {
      response.writeHead(204, answer.headers)
      response.end()
    } else {
      response.writeHead(answer.status, { ...answer.headers, "content-length": Buffer.byteLength(answer.body) })
      response.end(answer.body)
    }
    return
  }
  const web = answer.body
  const headers: Record<string, string> = {}
  web.headers.forEach((value, name) => {
    headers[name] = value
  })
  response.writeHead(answer.status, { ...headers, ...answer.headers })
  if (web.body === null) response.end()
  else Readable.fromWeb(web.body as NodeReadableStream).pipe(response)
}

// The pipeline renders every failure itself; this is for a defect in writing, never a client's error.
const crashed = (response: ServerResponse) => {
  if (response.headersSent) response.destroy()
  else response.writeHead(500, { "content-type": "application/json; charset=utf-8" }).end('{"error":"internal_error"}')
}

export const layer = <R>(
  app: (incoming: IncomingMessage) => Effect.Effect<Answer, never, R>,
  options: ListenOptions
): Layer.Layer<Address, never, R> =>
  Layer.scoped(
    Address,
    Effect.gen(function* () {
      const given = yield* Effect.runtime<R>()
      const runtime =
        options.tracing === false ? Runtime.setFiberRef(given, FiberRef.currentTracerEnabled, false) : given
      const run = Runtime.runCallback(runtime)
      const server = createServer((incoming, response) => {
        // A client gone before its answer is not a reason to interrupt the request: a request still
        // reading its body fails at once (see `App`), and one past it finishes its unit of work, its
        // answer unread. Interrupting a statement on PostgreSQL sends a cancel through the pool, so
        // when every pooled connection belonged to a request whose client had gone (a load
        // balancer's timeout, a benchmark's end), every cancel waited for a connection that only a
        // cancel could free, and the server stood still for the cancels' five-second timeout.
        run(app(incoming), {
          onExit: (exit) => {
            if (Exit.isSuccess(exit)) write(response, exit.value)
            else if (!Exit.isInterrupted(exit)) crashed(response)
          }
        })
      })
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
            server.close(() => resume(Effect.void))
            // Keep-alive sockets would hold `close` open until their clients go away.
            server.closeAllConnections()
          })
      )
      const bound = server.address() as AddressInfo
      yield* Effect.logInfo(`Listening on http://${options.host}:${bound.port}`)
      return { host: options.host, port: bound.port }
    })
  )
