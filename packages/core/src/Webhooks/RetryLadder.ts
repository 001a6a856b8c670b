/**
 * What happens after a delivery attempt: the Standard Webhooks retry ladder with jitter,
 * `Retry-After` on 429/503, 410 disabling the subscription, and a subscription failing for five
 * days straight being disabled. Pure: the time, the jitter draw and the attempt's outcome come in.
 */

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

/** Delay before each attempt: the first goes out at once, then about three days of retries. */
export const LADDER_MS: ReadonlyArray<number> = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR
]

export const MAX_ATTEMPTS = LADDER_MS.length

/** Up to this share of a step is added at random, so receivers recovering from an outage are not hit all at once. */
export const JITTER = 0.1

/** A receiver's `Retry-After` is honoured up to the longest step of the ladder. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR

export const DISABLE_AFTER_FAILING_MS = 5 * 24 * HOUR

export type AttemptOutcome =
  | { readonly _tag: "Response"; readonly status: number; readonly retryAfter: string | undefined }
  | { readonly _tag: "Failure"; readonly error: string }

export const isSuccess = (outcome: AttemptOutcome): boolean =>
  outcome._tag === "Response" && outcome.status >= 200 && outcome.status < 300

/** Seconds or an HTTP date, as RFC 9110 allows; anything else is ignored. */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export interface Decision {
  readonly status: "pending" | "succeeded" | "failed"
  readonly nextAttemptAt: number | null
  /** Set when the subscription must stop: its visible `disabled_reason`. */
  readonly disable: string | null
  /** The subscription's new `failing_since`: null after a success, kept or started after a failure. */
  readonly failingSince: number | null
}

/**
 * `attempts` counts the attempt just made; `jitter` is a draw from [0, 1); `failingSince` is when
 * the subscription's current run of failures began (null when its last attempt succeeded).
 */
export const decide = (input: {
  readonly outcome: AttemptOutcome
  readonly attempts: number
  readonly now: number
  readonly jitter: number
  readonly failingSince: number | null
}): Decision => {
  const { outcome, attempts, now } = input
  if (isSuccess(outcome)) return { status: "succeeded", nextAttemptAt: null, disable: null, failingSince: null }
  const failingSince = input.failingSince ?? now
  if (outcome._tag === "Response" && outcome.status === 410) {
    return {
      status: "failed",
      nextAttemptAt: null,
      disable: "the target answered 410 Gone",
      failingSince
    }
  }
  const disable =
    now - failingSince >= DISABLE_AFTER_FAILING_MS
      ? `every delivery failed for 5 days since ${new Date(failingSince).toISOString()}`
      : null
  if (disable !== null || attempts >= MAX_ATTEMPTS)
    return { status: "failed", nextAttemptAt: null, disable, failingSince }
  const step = LADDER_MS[attempts]!
  const asked =
    outcome._tag === "Response" && (outcome.status === 429 || outcome.status === 503)
      ? parseRetryAfter(outcome.retryAfter, now)
      : undefined
  const delay =
    asked === undefined
      ? step + Math.floor(step * JITTER * input.jitter)
      : Math.min(Math.max(asked, SECOND), MAX_RETRY_AFTER_MS)
  return { status: "pending", nextAttemptAt: now + delay, disable: null, failingSince }
}
