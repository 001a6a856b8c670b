/**
 * The Idempotency service on every store: what is kept, what runs again, what waits. The answer is
 * the caller's to encode; here a run answers a number and keeps it as text, or keeps nothing.
 */
import { Access, Idempotency, Ids, Kernel } from "@crm/core"
import { expect, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { layerOn } from "../support/ports.js"
import { storages } from "../support/storages.js"

/** A run answering `n`: kept as its text unless `keep` is false, its writes rolled back when `refused`. */
const answer = (n: number, options: { keep?: boolean; refused?: boolean } = {}): Idempotency.Run<number> => ({
  value: n,
  refused: options.refused ?? false,
  payload: options.keep === false ? undefined : `n=${n}`
})

for (const storage of storages) {
  layer(layerOn<Idempotency.Idempotency>(storage, (ports) => Kernel.layer.pipe(Layer.provide(ports))))(
    `Idempotency [${storage.name}]`,
    (it) => {
      const scope = () => ({ keyId: Ids.brand(Access.KeyId, crypto.randomUUID()), idempotencyKey: "k" })
      const execute = (
        s: Idempotency.IdempotencyScope,
        fingerprint: string,
        run: Effect.Effect<Idempotency.Run<number>>
      ) => Effect.flatMap(Idempotency.Idempotency, (service) => service.execute(s, fingerprint, run))

      it.effect("keeps the payload and replays it without running again", () =>
        Effect.gen(function* () {
          const s = scope()
          let runs = 0
          const run = Effect.sync(() => answer(++runs))
          expect(yield* execute(s, "f", run)).toEqual({ replayed: false, value: 1 })
          expect(yield* execute(s, "f", run)).toEqual({ replayed: true, payload: "n=1" })
          expect(runs).toBe(1)
        })
      )

      it.effect("keeps nothing without a payload: the retry runs again", () =>
        Effect.gen(function* () {
          const s = scope()
          let runs = 0
          const run = Effect.sync(() => (runs++ === 0 ? answer(503, { keep: false }) : answer(201)))
          expect(yield* execute(s, "f", run)).toEqual({ replayed: false, value: 503 })
          expect(yield* execute(s, "f", run)).toEqual({ replayed: false, value: 201 })
          expect(runs).toBe(2)
        })
      )

      it.effect("keeps a refusal's payload too: the retry hears the same refusal", () =>
        Effect.gen(function* () {
          const s = scope()
          let runs = 0
          const run = Effect.sync(() => answer(400 + ++runs, { refused: true }))
          expect(yield* execute(s, "f", run)).toEqual({ replayed: false, value: 401 })
          expect(yield* execute(s, "f", run)).toEqual({ replayed: true, payload: "n=401" })
          expect(runs).toBe(1)
        })
      )

      it.effect("refuses the key with another fingerprint", () =>
        Effect.gen(function* () {
          const s = scope()
          const run = Effect.succeed(answer(200))
          yield* execute(s, "f1", run)
          const other = yield* Effect.either(execute(s, "f2", run))
          expect(Either.isLeft(other) && other.left._tag).toBe("IdempotencyKeyReused")
        })
      )

      it.effect("tells a duplicate arriving while the first runs to retry, then replays", () =>
        Effect.gen(function* () {
          const s = scope()
          const started = yield* Deferred.make<void>()
          const finish = yield* Deferred.make<void>()
          const slow = Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Deferred.await(finish)),
            Effect.as(answer(7))
          )
          const first = yield* Effect.fork(execute(s, "f", slow))
          yield* Deferred.await(started)
          const duplicate = yield* Effect.either(execute(s, "f", slow))
          expect(Either.isLeft(duplicate) && duplicate.left._tag).toBe("IdempotencyInProgress")
          yield* Deferred.succeed(finish, undefined)
          expect((yield* Fiber.join(first)).replayed).toBe(false)
          expect(yield* execute(s, "f", slow)).toEqual({ replayed: true, payload: "n=7" })
        })
      )
    }
  )
}
