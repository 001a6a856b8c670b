import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StorageError } from "../Errors.js"
import type { KeyId } from "./KeyIds.js"

export interface RateDecision {
  readonly admitted: boolean
  /** Requests still admissible in the window after this one. */
  readonly remaining: number
  /** When refused: milliseconds until the oldest request of the window leaves it. */
  readonly retryAfterMs: number
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
      request: { readonly now: number; readonly limit: number; readonly windowMs: number; readonly spend: boolean }
    ) => Effect.Effect<RateDecision, StorageError>
  }
>() {}
