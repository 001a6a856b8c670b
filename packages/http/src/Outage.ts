/**
 * The store's outages as the requests meet them, for the log: one warning with the cause when the
 * first request finds the store unreachable, one line when a request gets through to it again.
 * The requests in between answer 503 and log nothing each: an outage of a minute under load would
 * otherwise be thousands of identical lines burying the one that says why.
 */
import type { Errors } from "@crm/core"
import * as Effect from "effect/Effect"

export interface Outage {
  /** Whether an outage is under way: the only thing a request that succeeds looks at. */
  readonly active: () => boolean
  /** A request refused because the store cannot be reached. */
  readonly refused: (error: Errors.StorageUnavailable) => Effect.Effect<void>
  /** A request that the store answered: ends the outage under way, if any. */
  readonly answered: Effect.Effect<void>
}

export const make = (): Outage => {
  let since: number | undefined
  let refusals = 0
  return {
    active: () => since !== undefined,
    refused: (error) =>
      Effect.suspend(() => {
        refusals++
        if (since !== undefined) return Effect.void
        since = Date.now()
        return Effect.logWarning(
          "the database cannot be reached: requests that need it answer 503 service_unavailable until it can",
          { cause: error.message }
        )
      }),
    answered: Effect.suspend(() => {
      if (since === undefined) return Effect.void
      const lasted = Date.now() - since
      const refused = refusals
      since = undefined
      refusals = 0
      return Effect.logInfo("the database answers again", { outage_ms: lasted, requests_refused: refused })
    })
  }
}
