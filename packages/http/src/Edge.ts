/**
 * What every part of the edge shares: the limits, the answer the listener writes, the error body
 * and the request id. Its own module so that the pipeline, the listener, the metrics and the pages
 * depend on it rather than on each other.
 */
import { randomUUID } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"

/** What the pipeline answers: a rendered body, or an endpoint's web `Response` to stream as it is. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Uint8Array | Response | Handover
}

/**
 * An answer written by a library that speaks node's request and response itself (the OAuth
 * authorization server): handed the response, it writes status, headers and body, and must end
 * it, failure or not. `status` and `headers` of its `Answer` are not written.
 */
export type Handover = (response: import("node:http").ServerResponse) => void

/** Where the metrics are served: beside the health checks, outside the versioned APIs. */
export const METRICS_PATH = "/metrics"

export const MAX_BODY_BYTES = 1024 * 1024
/** The request target (path and query); a longer one is 414 `uri_too_long` (RFC 9110 asks for at least 8000). */
export const MAX_URL_BYTES = 8192
/** The request line and headers together; more is 431 `headers_too_large` (see `Listener`). */
export const MAX_HEADER_BYTES = 16 * 1024

/** The largest body a streamed route reads (an organisation's import): 1 GiB. */
export const MAX_STREAMED_BODY_BYTES = 1024 * 1024 * 1024

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export const errorBody = (code: string, detail: unknown, requestId: string): string =>
  JSON.stringify({ error: code, detail, request_id: requestId })

/** The client's `X-Request-Id` when it is a sane token, else a new one. */
export const requestIdOf = (given: string | undefined): string =>
  given !== undefined && SANE_REQUEST_ID.test(given) ? given : randomUUID()

/** A header as one string: node gives an array only for headers that may repeat, none of which we read. */
export const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** Text made safe inside HTML, in an element or a quoted attribute: for the pages the server renders itself. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)
