/**
 * Stage: rendering. A handler's reply becomes a status, headers and a body (JSON text, bytes or a
 * stream); a failure becomes the contract's error body with its status and the headers its kind
 * carries (`Retry-After`, the budget). Every code reaches here typed (`EdgeFailure`), so its status
 * is the table's; the store failing is a 500 by rule, an outage a 503; a defect is a 500 logged
 * with the request id.
 */
import { Errors, type Wire } from "@crm/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Answer, errorBody } from "../Edge.js"
import { STATUS_BY_CODE } from "../ErrorStatus.js"
import type * as Outage from "../Outage.js"
import { HttpFailure, type Reply } from "../Reply.js"
import type { StoredResponse } from "../StoredResponse.js"
import { budgetHeaders } from "./budget.js"
import type { EdgeFailure, Reached, Served } from "./Reached.js"

/** A response as a handler's reply renders: JSON text, or the bytes of a file, or a stream. */
export type Rendered = Omit<StoredResponse, "body"> & { readonly body: Answer["body"] }

const json = "application/json; charset=utf-8"
const JSON_HEADERS = { "content-type": json }
const REPLAYED_HEADERS = { "idempotency-replayed": "true" }

// Headers are merged with `Object.assign`, not spread. On node 20's V8, an object made by spreading
// a non-empty one and then given more properties gets hidden classes of its own on every call,
// made in the old generation, and each request's headers and what they reached were promoted with
// them instead of dying young (docs/benchmarks.md, seventh pass).

/** `encode` is the route's: money leaves the records as text and is written as JSON numbers. */
export const renderReply = (reply: Reply, encode: Wire.Convert | undefined): Rendered =>
  reply.stream !== undefined
    ? { status: reply.status, headers: reply.headers ?? {}, body: new Response(reply.stream) }
    : reply.bytes !== undefined
      ? { status: reply.status, headers: reply.headers ?? {}, body: reply.bytes }
      : {
          status: reply.status,
          headers: Object.assign({}, reply.headers, reply.status === 204 ? undefined : JSON_HEADERS),
          body:
            reply.status === 204
              ? ""
              : (reply.json ??
                (reply.body === undefined
                  ? ""
                  : JSON.stringify(encode === undefined ? reply.body : encode(reply.body))))
        }

const extraHeaders = (error: EdgeFailure): Record<string, string> | undefined => {
  if (error instanceof HttpFailure) return error.headers
  if (error instanceof Errors.RateLimited) {
    return {
      "retry-after": String(error.retryAfterSeconds),
      "x-ratelimit-limit": String(error.limit),
      "x-ratelimit-remaining": "0"
    }
  }
  if (error instanceof Errors.IdempotencyInProgress) return { "retry-after": "1" }
  if (error instanceof Errors.StorageUnavailable || error instanceof Errors.NotMigrated) {
    return { "retry-after": String(error.retryAfterSeconds) }
  }
  return undefined
}

const coded = (status: number, code: string, detail: unknown, requestId: string, more?: Record<string, string>) => ({
  status,
  headers: Object.assign({ "content-type": json }, more),
  body: errorBody(code, detail, requestId)
})

const internal = (requestId: string, cause: Cause.Cause<unknown>): Effect.Effect<StoredResponse> =>
  Effect.as(
    Effect.logError("request failed", { request_id: requestId, cause: Cause.pretty(cause) }),
    coded(500, "internal_error", "an unexpected error occurred; quote the request id when reporting it", requestId)
  )

export const renderFailure = (
  cause: Cause.Cause<EdgeFailure>,
  requestId: string,
  outage: Outage.Outage
): Effect.Effect<StoredResponse> => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) return internal(requestId, cause)
  const error = failure.value
  if (error instanceof Errors.StorageUnavailable) {
    return Effect.as(outage.refused(error), coded(503, error.code, error.detail, requestId, extraHeaders(error)))
  }
  // The store failing otherwise is no client's fault and says nothing of its cause on the wire.
  if (error instanceof Errors.StorageError) return internal(requestId, cause)
  // A code outside the table can only come from a cast past the types: a defect, not a guess.
  const status: number | undefined = STATUS_BY_CODE[error.code]
  if (status === undefined) return internal(requestId, cause)
  return Effect.succeed(coded(status, error.code, error.detail, requestId, extraHeaders(error)))
}

/** The answer as sent: what was served, with the request's id and, for an admitted key, its budget. */
export const answer = (reached: Reached, served: Served): Answer => ({
  status: served.status,
  headers: Object.assign(
    {},
    served.headers,
    { "x-request-id": reached.requestId },
    reached.budget === undefined ? undefined : budgetHeaders(reached.budget),
    served.replayed ? REPLAYED_HEADERS : undefined
  ),
  body: served.body
})
