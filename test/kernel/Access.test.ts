/**
 * Admission's writes of a key's last use: off the request's path, and one at a time per process,
 * so that a burst of keys seen for the first time costs a few statements, not one per key.
 */
import { Access, Kernel } from "@crm/core"
import * as StorageMemory from "@crm/storage-memory"
import { expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

it.effect("writes the last use of a burst of new keys in a few statements, each key's latest", () =>
  Effect.gen(function* () {
    const writes: Array<number> = []
    const held = yield* Deferred.make<void>()
    // The store's own repository, whose first write of last uses waits until the burst is admitted.
    const ports = Layer.effectContext(
      Effect.map(StorageMemory.make, (context) => {
        const repo = Context.get(context, Access.AccessRepository)
        return Context.add(context, Access.AccessRepository, {
          ...repo,
          touchKeys: (uses) =>
            Effect.suspend(() => {
              writes.push(uses.length)
              return Effect.zipRight(writes.length === 1 ? Deferred.await(held) : Effect.void, repo.touchKeys(uses))
            })
        })
      })
    )
    yield* Effect.gen(function* () {
      const access = yield* Access.Access
      const repo = yield* Access.AccessRepository
      const organisation = yield* access.createOrganisation({ name: "Many keys" })
      const keys = yield* Effect.forEach(Array.from({ length: 50 }), () =>
        access.createKey(organisation.id, { scopes: ["read"], allowed_ips: [] })
      )
      for (const key of keys) yield* access.admit(key.key, "127.0.0.1", true)
      // The first key's write is under way; the 49 others wait for it, then go together.
      expect(writes).toEqual([1])
      yield* Deferred.succeed(held, undefined)
      while (writes.length < 2) yield* Effect.yieldNow()
      expect(writes).toEqual([1, 49])
      yield* Effect.sleep(0)
      for (const key of keys) {
        expect(Option.getOrThrow(yield* repo.key(key.id)).last_used_at).not.toBeNull()
      }
    }).pipe(Effect.provide(Kernel.layer.pipe(Layer.provideMerge(ports))))
  })
)
