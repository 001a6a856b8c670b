/**
 * A path answered by its own handler with the request as a web `Request` (the MCP endpoint): it
 * gets the same request id, authentication, rate budget (one unit per request) and error rendering
 * as REST, but no scope check (its handler checks its own), no idempotency and no REST body
 * parsing; a body declared larger than the limit is refused with 413.
 */
import type { IncomingMessage } from "node:http"
import { Readable } from "node:stream"
import type { Access } from "@crm/core"
import * as Effect from "effect/Effect"
import { header } from "../Edge.js"
import { HttpFailure } from "../Reply.js"
import type { Services } from "../Route.js"
import type { EdgeFailure, Served } from "./Reached.js"

export interface Endpoint<R = never> {
  readonly path: string
  readonly handle: (request: Request, principal: Access.Principal) => Effect.Effect<Response, EdgeFailure, Services | R>
}

/** The request as a web `Request`, for an endpoint that speaks the fetch API (the MCP SDK). */
export const toWebRequest = (incoming: IncomingMessage, url: URL): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item)
  }
  const method = incoming.method ?? "GET"
  const hasBody = method !== "GET" && method !== "HEAD"
  return new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(incoming) as ReadableStream, duplex: "half" } : {})
  } as RequestInit)
}

/** The endpoint's handler, once its caller is admitted; its web `Response` is streamed as it is. */
export const serveEndpoint = <R>(
  endpoint: Endpoint<R>,
  incoming: IncomingMessage,
  url: URL,
  principal: Access.Principal,
  maxBodyBytes: number
): Effect.Effect<Served, EdgeFailure, Services | R> =>
  Number(header(incoming.headers, "content-length") ?? "0") > maxBodyBytes
    ? HttpFailure.of("payload_too_large", `the body exceeds the limit of ${maxBodyBytes} bytes`)
    : Effect.map(endpoint.handle(toWebRequest(incoming, url), principal), (response) => ({
        status: response.status,
        headers: {},
        body: response,
        replayed: false
      }))
