/**
 * Exactly-once writes for a client's `Idempotency-Key`: the claim, the effect and the stored
 * answer share one transaction, so a crash or rollback leaves nothing half-done and no key stuck.
 * The answer is kept as the caller encodes it (a transport knows what a retry must hear; the
 * kernel does not).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type IdempotencyScope, IdempotencyStore } from "./Access/IdempotencyStore.js"
import { IdempotencyInProgress, IdempotencyKeyReused, type StorageError } from "./Errors.js"
import { Transaction } from "./Transaction.js"

export * from "./Access/IdempotencyStore.js"

export const WINDOW_MS = 24 * 60 * 60 * 1000

/** What one run of the protected operation answers, as the caller will use it and as a retry must get it. */
export interface Run<A> {
  readonly value: A
  /** Its writes are rolled back, and its answer is still kept: a retry hears the same refusal. */
  readonly refused: boolean
  /** The answer encoded for a retry; `undefined` keeps nothing, so a retry runs afresh. */
  readonly payload: string | undefined
}

/** This request's own answer, or the encoded answer of the first request under the key. */
export type Outcome<A> =
  | { readonly replayed: false; readonly value: A }
  | { readonly replayed: true; readonly payload: string }

export class Idempotency extends Context.Tag("@crm/core/Idempotency")<
  Idempotency,
  {
    readonly execute: <A, R>(
      scope: IdempotencyScope,
      fingerprint: string,
      run: Effect.Effect<Run<A>, never, R>
    ) => Effect.Effect<Outcome<A>, Failure, R>
    readonly purge: Effect.Effect<number, StorageError>
  }
>() {}

const inProgress = () =>
  new IdempotencyInProgress({ detail: "a request with this Idempotency-Key is still being processed" })

/** A refusal rolls back its unit of work before it is stored (see `Transaction`). */
class Refused<A> {
  readonly _tag = "Refused"
  constructor(readonly run: Run<A>) {}
}

/** `save` met a record stored after `claim` looked (see `IdempotencyStore`): roll back, claim again. */
class Overtaken {
  readonly _tag = "Overtaken"
}

/** A second claim replays what overtook the first; more than this means something is wrong. */
const MAX_CLAIMS = 3

export const make = Effect.gen(function* () {
  const store = yield* IdempotencyStore
  const tx = yield* Transaction
  // The store's lock is what holds across processes; this set only answers a duplicate that
  // arrives in the same process at once, instead of letting it queue behind the first.
  const running = new Set<string>()

  const notBeforeOf = (now: number) => new Date(now - WINDOW_MS).toISOString()

  /** The stored answer for this key, or nothing; a different request under the key is refused. */
  const claim = (scope: IdempotencyScope, fingerprint: string, now: number) =>
    Effect.flatMap(store.claim(scope, notBeforeOf(now)), (existing) => {
      if (Option.isNone(existing)) return Effect.succeedNone
      if (existing.value.fingerprint !== fingerprint) {
        return Effect.fail(
          new IdempotencyKeyReused({ detail: "this Idempotency-Key was used with another method, path or body" })
        )
      }
      return Effect.succeedSome<Outcome<never>>({ replayed: true, payload: existing.value.payload })
    })

  /** Keeps the run's answer, if it has one to keep, and answers with its value. */
  const settled = <A>(scope: IdempotencyScope, fingerprint: string, now: number, run: Run<A>) => {
    const answer: Outcome<A> = { replayed: false, value: run.value }
    if (run.payload === undefined) return Effect.succeed(answer)
    const record = { fingerprint, payload: run.payload, created_at: new Date(now).toISOString() }
    return Effect.flatMap(store.save(scope, record, notBeforeOf(now)), (saved) =>
      saved ? Effect.succeed(answer) : Effect.fail(new Overtaken())
    )
  }

  return Idempotency.of({
    execute: <A, R>(scope: IdempotencyScope, fingerprint: string, run: Effect.Effect<Run<A>, never, R>) =>
      Effect.suspend(() => {
        const slot = `${scope.keyId}\u0000${scope.idempotencyKey}`
        if (running.has(slot)) return Effect.fail(inProgress())
        running.add(slot)
        // Chained rather than written with `Effect.gen`: a generator function made on every call
        // costs V8 a map of its own per call, which keeps the request alive into the old
        // generation (docs/benchmarks.md, seventh pass).
        const claimed = <E, R2>(then: (now: number) => Effect.Effect<Outcome<A>, E, R2>) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.flatMap(claim(scope, fingerprint, now), (replay) =>
              Option.isSome(replay) ? Effect.succeed(replay.value) : then(now)
            )
          )
        const attempt = tx.run(
          claimed((now) =>
            Effect.flatMap(
              run,
              (ran): Effect.Effect<Outcome<A>, Failure | Refused<A> | Overtaken> =>
                ran.refused ? Effect.fail(new Refused(ran)) : settled(scope, fingerprint, now, ran)
            )
          )
        )
        // The refused request's writes are gone with its transaction; its answer is stored in a
        // second one under the same lock, unless a duplicate got in between and stored its own.
        const afterRefusal = (ran: Run<A>) =>
          ran.payload === undefined
            ? Effect.succeed<Outcome<A>>({ replayed: false, value: ran.value })
            : tx.run(claimed((now) => settled(scope, fingerprint, now, ran)))
        const settle = (claims: number): Effect.Effect<Outcome<A>, Failure, R> =>
          attempt.pipe(
            Effect.catchIf(
              (error): error is Refused<A> => error instanceof Refused,
              (refused) => afterRefusal(refused.run)
            ),
            Effect.catchIf(
              (error): error is Overtaken => error instanceof Overtaken,
              () => (claims < MAX_CLAIMS ? settle(claims + 1) : Effect.fail(inProgress()))
            )
          )
        return settle(1).pipe(Effect.ensuring(Effect.sync(() => running.delete(slot))))
      }),
    purge: Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      return yield* store.purgeBefore(notBeforeOf(now))
    })
  })
})

type Failure = IdempotencyInProgress | IdempotencyKeyReused | StorageError

export const layer = Layer.effect(Idempotency, make)
