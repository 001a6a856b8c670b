/**
 * Stored responses per (API key, Idempotency-Key). `claim` needs no lock of its own here: it runs
 * inside a unit of work and units are serialised, so a second claimant waits for the first to end
 * and then sees its saved record; it never reports `IdempotencyInProgress`.
 */
import { Idempotency } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { copy, copyOut, instant, read, type Store, write } from "./internal/Store.js"

const slot = (scope: Idempotency.IdempotencyScope): string => `${scope.keyId}\u0000${scope.idempotencyKey}`

export const make = (store: Store): Context.Tag.Service<typeof Idempotency.IdempotencyStore> =>
  Idempotency.IdempotencyStore.of({
    claim: (scope, notBefore) =>
      read(store, (state) =>
        HashMap.get(state.idempotency, slot(scope)).pipe(
          Option.filter((record) => instant(record.created_at) >= instant(notBefore)),
          Option.map(copyOut)
        )
      ),

    save: (scope, input, notBefore) =>
      Effect.flatMap(copy(input), (record) =>
        write(store, (state) => {
          const live = HashMap.get(state.idempotency, slot(scope)).pipe(
            Option.exists((existing) => instant(existing.created_at) >= instant(notBefore))
          )
          return live
            ? [Either.right(false), state]
            : [Either.right(true), { ...state, idempotency: HashMap.set(state.idempotency, slot(scope), record) }]
        })
      ),

    purgeBefore: (at) =>
      write(store, (state) => {
        const cutoff = instant(at)
        const idempotency = HashMap.filter(state.idempotency, (record) => instant(record.created_at) >= cutoff)
        const purged = HashMap.size(state.idempotency) - HashMap.size(idempotency)
        return [Either.right(purged), purged === 0 ? state : { ...state, idempotency }]
      })
  })
