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
