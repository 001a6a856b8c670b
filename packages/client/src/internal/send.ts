/**
 * One call on the wire: the headers every attempt carries, and the retries. Only two answers are
 * retried, both saying the request was not carried out and when to come back: 429 (rate limited)
 * and 409 `idempotency_in_progress` (the first request with this key is still running). Any other
 * answer is the caller's, at once.
 */

import { randomUuid } from "./uuid.js"

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number
  /** The longest `Retry-After` waited out, in seconds; a longer one is answered at once. */
  readonly maxWaitSeconds: number
}

export type Fetch = (request: Request) => Promise<Response>

export interface Attempted {
  /** The `X-Request-Id` sent with the latest attempt. */
  requestId: string
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export const retryAfterOf = (response: Response, now: number = Date.now()): number | undefined => {
  const value = response.headers.get("retry-after")?.trim()
  if (value === undefined || value === "") return undefined
  if (/^\d+$/.test(value)) return Number(value)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000))
}

/** How long to wait before trying again, or undefined when the answer is not one to retry. */
const waitFor = async (response: Response): Promise<number | undefined> => {
  if (response.status === 429) return retryAfterOf(response) ?? 1
  if (response.status !== 409) return undefined
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined)
  const inProgress =
    typeof body === "object" && body !== null && (body as { error?: unknown }).error === "idempotency_in_progress"
  return inProgress ? (retryAfterOf(response) ?? 1) : undefined
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal.addEventListener("abort", onAbort, { once: true })
  })

/**
 * A fetch for one call: each attempt is a copy of the request with the idempotency key (unless the
 * caller set the header) and a request id (the caller's, else a new one per attempt), so that a call
 * that gets no answer still has an id the server's log knows it by. The same key goes with every
 * attempt: a retry is the same request, which the server carries out once.
 */
export const sending =
  (fetch: Fetch, options: { idempotencyKey: string | undefined; policy: RetryPolicy; attempted: Attempted }): Fetch =>
  async (request) => {
    for (let attempt = 1; ; attempt++) {
      const copy = request.clone()
      if (options.idempotencyKey !== undefined && !copy.headers.has("idempotency-key")) {
        copy.headers.set("idempotency-key", options.idempotencyKey)
      }
      const requestId = request.headers.get("x-request-id") ?? randomUuid()
      copy.headers.set("x-request-id", requestId)
      options.attempted.requestId = requestId
      const response = await fetch(copy)
      const wait = attempt < options.policy.maxAttempts ? await waitFor(response) : undefined
      if (wait === undefined || wait > options.policy.maxWaitSeconds) return response
      // Aborted while waiting: the answer being waited out is the call's answer.
      const waited = await sleep(wait * 1000, request.signal).then(
        () => true,
        () => false
      )
      if (!waited) return response
      await response.body?.cancel()
    }
  }
