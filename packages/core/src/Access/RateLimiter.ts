import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { KeyId } from "./KeyIds.js"

export interface RateDecision {
  readonly admitted: boolean
  /** Requests still admissible in the window after this one. */
  readonly remaining: number
  /** When refused: milliseconds until the oldest request of the window leaves it. */
  readonly retryAfterMs: number
  /**
   * The key's organisation's access version, read by the same statement (see
   * `AccessRepository.FoundKey`); absent where the store's key answers are never stale.
   */
  readonly accessVersion?: number
}

/**
 * An exact rolling window per key, shared by every process on the store: no span of
 * `windowMs` ever admits more than `limit` requests. `spend: false` only reports.
 */
export class RateLimiter extends Context.Tag("@crm/core/RateLimiter")<
  RateLimiter,
  {
    readonly take: (
      keyId: KeyId,
      request: {
        readonly organisationId: OrganisationId
        readonly now: number
        readonly limit: number
        readonly windowMs: number
        readonly spend: boolean
      }
    ) => Effect.Effect<RateDecision, StorageError>
    /**
     * Told after a request of the key that may have written has ended, its writes committed: a
     * store that answers reads from a standby (`Reads.fromStandby`) records where its history
     * stands, and a later take of the key, on any process, hands that on, so that the key's
     * reads are not answered by a standby that has not replayed them. Other stores do nothing.
     */
    readonly wrote: (keyId: KeyId, organisationId: OrganisationId) => Effect.Effect<void, StorageError>
    /** Whether the store reads from a standby at all: without one, a transport need not mark or fence anything. */
    readonly standby: boolean
  }
>() {}

/** What one take asks of a key's window: at `now`, at most `limit` in `windowMs`; `spend` records it. */
export interface TakeRequest {
  readonly now: number
  readonly limit: number
  readonly windowMs: number
  readonly spend: boolean
}

/** The first index at or after `from` whose time is later than `at` (`times` ascending). */
const firstLater = (times: ReadonlyArray<number>, at: number, from: number): number => {
  let low = from
  let high = times.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (times[middle]! > at) high = middle
    else low = middle + 1
  }
  return low
}

/**
 * One take from an exact rolling window that a store keeps itself, as its admitted requests'
 * times in ascending order: the decision, how many times at the front have left the window, and
 * where `now` goes among those that remain when the take is recorded (undefined when it is not).
 * It allocates nothing, so a store may apply it to the window in place.
 */
export const takeFrom = (
  times: ReadonlyArray<number>,
  { limit, now, spend, windowMs }: TakeRequest
): { readonly decision: RateDecision; readonly expired: number; readonly insertAt: number | undefined } => {
  const expired = firstLater(times, now - windowMs, 0)
  const kept = times.length - expired
  const admitted = kept < limit
  const recorded = admitted && spend
  const oldest = times[expired]
  return {
    decision: {
      admitted,
      remaining: Math.max(0, limit - kept - (recorded ? 1 : 0)),
      retryAfterMs: admitted ? 0 : oldest === undefined ? windowMs : oldest + windowMs - now
    },
    expired,
    // Callers read the clock before they queue, so `now` may be older than a time already kept.
    insertAt: recorded ? firstLater(times, now, expired) - expired : undefined
  }
}
