/** An exact rolling window: the admitted request times themselves are kept, not a bucket estimate. */
import { Access } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { read, type State, type Store, write } from "./internal/Store.js"

const decide = (state: State, keyId: string, request: Access.TakeRequest) => {
  const times = Option.getOrElse(HashMap.get(state.rateWindows, keyId), (): ReadonlyArray<number> => [])
  const { decision, expired, insertAt } = Access.takeFrom(times, request)
  const kept = times.slice(expired)
  const window = insertAt === undefined ? kept : [...kept.slice(0, insertAt), request.now, ...kept.slice(insertAt)]
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
