/**
 * The store's outages as the requests meet them, for the log: one warning with the cause when the
 * first request finds the store unreachable, one line when a request gets through to it again.
 * The requests in between answer 503 and log nothing each: an outage of a minute under load would
 * otherwise be thousands of identical lines burying the one that says why.
 */
import { Errors } from "@crm/core"
import * as Effect from "effect/Effect"

export interface Outage {
  /** Whether an outage is under way: the only thing a request that succeeds looks at. */
  readonly active: () => boolean
  /** A request refused because the store cannot be reached. */
  readonly refused: (error: Errors.StorageUnavailable) => Effect.Effect<void>
  /** A request that the store answered: ends the outage under way, if any. */
  readonly answered: Effect.Effect<void>
}

/** What the two lines say, and what the count of refusals in between is called in the second. */
export interface Wording {
  readonly began: string
  readonly ended: string
  readonly counted: string
}

const REQUESTS: Wording = {
  began: "the database cannot be reached: requests that need it answer 503 service_unavailable until it can",
  ended: "the database answers again",
  counted: "requests_refused"
}

/** The same two lines for a worker polling the store (mail, webhooks, housekeeping): a round stands for a request. */
export const forWorker = (worker: string): Wording => ({
  began: `${worker}: the database cannot be reached; retrying at every round, logged again only when it answers`,
  ended: `${worker}: the database answers again`,
  counted: "rounds_refused"
})

export const make = (wording: Wording = REQUESTS): Outage => {
  let since: number | undefined
  let refusals = 0
  return {
    active: () => since !== undefined,
    refused: (error) =>
      Effect.suspend(() => {
        refusals++
        if (since !== undefined) return Effect.void
        since = Date.now()
        return Effect.logWarning(wording.began, { cause: error.message })
      }),
    answered: Effect.suspend(() => {
      if (since === undefined) return Effect.void
      const lasted = Date.now() - since
      const refused = refusals
      since = undefined
      refusals = 0
      return Effect.logInfo(wording.ended, { outage_ms: lasted, [wording.counted]: refused })
    })
  }
}

/**
 * One round of a worker under `outage`: a round the store refuses counts toward the outage (logged
 * when it begins), one it answers ends it; other failures are left to the worker.
 */
export const round = <A, E, R>(
  outage: Outage,
  self: Effect.Effect<A, E, R>
): Effect.Effect<A | undefined, Exclude<E, Errors.StorageUnavailable>, R> =>
  self.pipe(
    Effect.tap(() => outage.answered),
    Effect.catchIf(
      (error): error is Extract<E, Errors.StorageUnavailable> => error instanceof Errors.StorageUnavailable,
      (error) => Effect.as(outage.refused(error), undefined)
    )
  ) as Effect.Effect<A | undefined, Exclude<E, Errors.StorageUnavailable>, R>
