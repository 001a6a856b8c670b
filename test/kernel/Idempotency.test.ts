/**
 * The Idempotency service on every store: what is kept, what runs again, what waits. The answer is
 * the caller's to encode; here a run answers a number and keeps it as text, or keeps nothing.
 */
import { Idempotency, Kernel } from "@crm/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Built, build } from "../support/ports.js"
import { storages } from "../support/storages.js"

/** A run answering `n`: kept as its text unless `keep` is false, its writes rolled back when `refused`. */
const answer = (n: number, options: { keep?: boolean; refused?: boolean } = {}): Idempotency.Run<number> => ({
  value: n,
  refused: options.refused ?? false,
  payload: options.keep === false ? undefined : `n=${n}`
})

for (const storage of storages) {
  describe(`Idempotency [${storage.name}]`, () => {
    let kernel: Built<Idempotency.Idempotency> | undefined
    beforeAll(async () => {
      kernel = await build(storage, (ports) => Kernel.layer.pipe(Layer.provide(ports)))
    })
    afterAll(async () => kernel?.close())

    const scope = () => ({ keyId: crypto.randomUUID(), idempotencyKey: "k" })
    const execute = (
      s: Idempotency.IdempotencyScope,
      fingerprint: string,
      run: Effect.Effect<Idempotency.Run<number>>
    ) => Effect.flatMap(Idempotency.Idempotency, (service) => service.execute(s, fingerprint, run))

    it("keeps the payload and replays it without running again", async () => {
      const s = scope()
      let runs = 0
      const run = Effect.sync(() => answer(++runs))
      expect(await kernel!.run(execute(s, "f", run))).toEqual({ replayed: false, value: 1 })
      expect(await kernel!.run(execute(s, "f", run))).toEqual({ replayed: true, payload: "n=1" })
      expect(runs).toBe(1)
    })

    it("keeps nothing without a payload: the retry runs again", async () => {
      const s = scope()
      let runs = 0
      const run = Effect.sync(() => (runs++ === 0 ? answer(503, { keep: false }) : answer(201)))
      expect(await kernel!.run(execute(s, "f", run))).toEqual({ replayed: false, value: 503 })
      expect(await kernel!.run(execute(s, "f", run))).toEqual({ replayed: false, value: 201 })
      expect(runs).toBe(2)
    })

    it("keeps a refusal's payload too: the retry hears the same refusal", async () => {
      const s = scope()
      let runs = 0
      const run = Effect.sync(() => answer(400 + ++runs, { refused: true }))
      expect(await kernel!.run(execute(s, "f", run))).toEqual({ replayed: false, value: 401 })
      expect(await kernel!.run(execute(s, "f", run))).toEqual({ replayed: true, payload: "n=401" })
      expect(runs).toBe(1)
    })

    it("refuses the key with another fingerprint", async () => {
      const s = scope()
      const run = Effect.succeed(answer(200))
      await kernel!.run(execute(s, "f1", run))
      const other = await kernel!.run(Effect.either(execute(s, "f2", run)))
      expect(Either.isLeft(other) && other.left._tag).toBe("IdempotencyKeyReused")
    })

    it("tells a duplicate arriving while the first runs to retry, then replays", async () => {
      const s = scope()
      const started = await kernel!.run(Deferred.make<void>())
      const finish = await kernel!.run(Deferred.make<void>())
      const slow = Deferred.succeed(started, undefined).pipe(
        Effect.zipRight(Deferred.await(finish)),
        Effect.as(answer(7))
      )
      const first = kernel!.run(execute(s, "f", slow))
      await kernel!.run(Deferred.await(started))
      const duplicate = await kernel!.run(Effect.either(execute(s, "f", slow)))
      expect(Either.isLeft(duplicate) && duplicate.left._tag).toBe("IdempotencyInProgress")
      await kernel!.run(Deferred.succeed(finish, undefined))
      expect((await first).replayed).toBe(false)
      expect(await kernel!.run(execute(s, "f", slow))).toEqual({ replayed: true, payload: "n=7" })
    })
  })
}
