/** The Idempotency service on every store: what is stored, what runs again, what waits. */
import { Idempotency, Kernel } from "@crm/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Built, build } from "../support/ports.js"
import { storages } from "../support/storages.js"

const storable = (response: Idempotency.StoredResponse) => response.status < 500

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
      run: Effect.Effect<Idempotency.StoredResponse>
    ) => Effect.flatMap(Idempotency.Idempotency, (service) => service.execute(s, fingerprint, run, storable))

    it("stores a 2xx and replays it without running again", async () => {
      const s = scope()
      let runs = 0
      const run = Effect.sync(() => ({ status: 201, headers: {}, body: `{"n":${++runs}}` }))
      const first = await kernel!.run(execute(s, "f", run))
      const second = await kernel!.run(execute(s, "f", run))
      expect(first).toEqual({ response: { status: 201, headers: {}, body: '{"n":1}' }, replayed: false })
      expect(second).toEqual({ response: first.response, replayed: true })
      expect(runs).toBe(1)
    })

    it("never stores a 5xx: the retry runs again", async () => {
      const s = scope()
      let runs = 0
      const run = Effect.sync(() => ({ status: runs++ === 0 ? 503 : 201, headers: {}, body: "" }))
      expect((await kernel!.run(execute(s, "f", run))).response.status).toBe(503)
      const retry = await kernel!.run(execute(s, "f", run))
      expect(retry).toMatchObject({ replayed: false, response: { status: 201 } })
      expect(runs).toBe(2)
    })

    it("refuses the key with another fingerprint", async () => {
      const s = scope()
      const run = Effect.succeed({ status: 200, headers: {}, body: "" })
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
        Effect.as({ status: 201, headers: {}, body: "slow" })
      )
      const first = kernel!.run(execute(s, "f", slow))
      await kernel!.run(Deferred.await(started))
      const duplicate = await kernel!.run(Effect.either(execute(s, "f", slow)))
      expect(Either.isLeft(duplicate) && duplicate.left._tag).toBe("IdempotencyInProgress")
      await kernel!.run(Deferred.succeed(finish, undefined))
      expect((await first).replayed).toBe(false)
      expect(await kernel!.run(execute(s, "f", slow))).toMatchObject({ replayed: true, response: { body: "slow" } })
    })
  })
}
