/** An exact rolling window: the admitted request times themselves are kept, not a bucket estimate. */
import { Access } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { read, type State, type Store, write } from "./internal/Store.js"

interface Request {
  readonly now: number
  readonly limit: number
  readonly windowMs: number
  readonly spend: boolean
}

const decide = (state: State, keyId: string, request: Request) => {
  const { limit, now, spend, windowMs } = request
  const cutoff = now - windowMs
  const stamps = Option.getOrElse(HashMap.get(state.rateWindows, keyId), (): ReadonlyArray<number> => [])
  const kept = stamps.filter((at) => at > cutoff)
  const admitted = kept.length < limit
  const recorded = admitted && spend
  const count = kept.length + (recorded ? 1 : 0)
  const oldest = kept[0]
  const decision: Access.RateDecision = {
    admitted,
    remaining: Math.max(0, limit - count),
    retryAfterMs: admitted ? 0 : oldest === undefined ? windowMs : oldest + windowMs - now
  }
  let window = kept
  if (recorded) {
    // Callers read the clock before queueing, so `now` may be older than a stamp already kept.
    const at = kept.findIndex((stamp) => stamp > now)
    window = at === -1 ? [...kept, now] : [...kept.slice(0, at), now, ...kept.slice(at)]
  }
  return { decision, window }
}

export const make = (store: Store): Context.Tag.Service<typeof Access.RateLimiter> =>
  Access.RateLimiter.of({
    take: (keyId, request) =>
      request.spend
        ? write(store, (state) => {
            const { decision, window } = decide(state, keyId, request)
            const rateWindows =
              window.length === 0
                ? HashMap.remove(state.rateWindows, keyId)
                : HashMap.set(state.rateWindows, keyId, window)
            return [Either.right(decision), { ...state, rateWindows }]
          })
        : read(store, (state) => decide(state, keyId, request).decision),
    // One copy of the state, read and written in place: nothing lags.
    wrote: () => Effect.void,
    standby: false
  })
