/**
 * What a retry under an `Idempotency-Key` gets back: the first request's response, kept by the
 * kernel as an opaque payload this module encodes and decodes. The encoding is the status, a line
 * feed, the headers as JSON, a line feed, then the body as it is: no escaping of the body, and
 * `storage-pg`'s migration 0022 encodes the rows it found the same way.
 */
import type { Idempotency } from "@crm/core"

export interface StoredResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export const encode = (response: StoredResponse): string =>
  `${response.status}\n${JSON.stringify(response.headers)}\n${response.body}`

export const decode = (payload: string): StoredResponse => {
  const afterStatus = payload.indexOf("\n")
  const afterHeaders = payload.indexOf("\n", afterStatus + 1)
  return {
    status: Number(payload.slice(0, afterStatus)),
    headers: JSON.parse(payload.slice(afterStatus + 1, afterHeaders)) as Record<string, string>,
    body: payload.slice(afterHeaders + 1)
  }
}

/** Responses a retry must see again; 5xx, 429 and authentication failures run afresh. */
const storable = (response: StoredResponse): boolean =>
  response.status < 500 && response.status !== 429 && response.status !== 401

/** A response as the kernel's `Idempotency.execute` takes it: a refusal (4xx) rolls its writes back. */
export const toRun = (response: StoredResponse): Idempotency.Run<StoredResponse> => ({
  value: response,
  refused: response.status >= 400,
  payload: storable(response) ? encode(response) : undefined
})

/** The response to send: this request's own, or the first one's, replayed. */
export const ofOutcome = (outcome: Idempotency.Outcome<StoredResponse>): StoredResponse =>
  outcome.replayed ? decode(outcome.payload) : outcome.value
