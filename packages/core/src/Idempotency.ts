/**
 * Exactly-once writes for a client's `Idempotency-Key`: the claim, the effect and the stored
 * response share one transaction, so a crash or rollback leaves nothing half-done and no key stuck.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type IdempotencyScope, IdempotencyStore, type StoredResponse } from "./Access/IdempotencyStore.js"
import { IdempotencyInProgress, IdempotencyKeyReused, type StorageError } from "./Errors.js"
import { Transaction } from "./Transaction.js"

export * from "./Access/IdempotencyStore.js"

export const WINDOW_MS = 24 * 60 * 60 * 1000

export interface Outcome {
  readonly response: StoredResponse
  readonly replayed: boolean
}

export class Idempotency extends Context.Tag("@crm/core/Idempotency")<
  Idempotency,
  {
    readonly execute: <R>(
      scope: IdempotencyScope,
      fingerprint: string,
      run: Effect.Effect<StoredResponse, never, R>,
      storable: (response: StoredResponse) => boolean
    ) => Effect.Effect<Outcome, IdempotencyInProgress | IdempotencyKeyReused | StorageError, R>
    readonly purge: Effect.Effect<number, StorageError>
  }
>() {}

const inProgress = () =>
  new IdempotencyInProgress({ detail: "a request with this Idempotency-Key is still being processed" })

export const make = Effect.gen(function* () {
  const store = yield* IdempotencyStore
  const tx = yield* Transaction
  // The store's lock is what holds across processes; this set only answers a duplicate that
  // arrives in the same process at once, instead of letting it queue behind the first.
  const running = new Set<string>()

  return Idempotency.of({
    execute: (scope, fingerprint, run, storable) =>
      Effect.suspend(() => {
        const slot = `${scope.keyId}\u0000${scope.idempotencyKey}`
        if (running.has(slot)) return Effect.fail(inProgress())
        running.add(slot)
        return tx
          .run(
            Effect.gen(function* () {
              const now = yield* Clock.currentTimeMillis
              const existing = yield* store.claim(scope, new Date(now - WINDOW_MS).toISOString())
              if (Option.isSome(existing)) {
                if (existing.value.fingerprint !== fingerprint) {
                  return yield* new IdempotencyKeyReused({
                    detail: "this Idempotency-Key was used with another method, path or body"
                  })
                }
                return { response: existing.value.response, replayed: true }
              }
              const response = yield* run
              if (storable(response)) {
                yield* store.save(scope, { fingerprint, response, created_at: new Date(now).toISOString() })
              }
              return { response, replayed: false }
            })
          )
          .pipe(Effect.ensuring(Effect.sync(() => running.delete(slot))))
      }).pipe(Effect.withSpan("Idempotency.execute")),
    purge: Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      return yield* store.purgeBefore(new Date(now - WINDOW_MS).toISOString())
    })
  })
})

export const layer = Layer.effect(Idempotency, make)
