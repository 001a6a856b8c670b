/**
 * Effect's set of root fibers, swapped for a linked list (`FiberRoots`) only when a composition root
 * asks for it: the listener alone leaves Effect's own. Swapped, the same set to Effect
 * (`Fiber.roots`) and, as a collection, the same answers as a `Set` over any sequence of adds and
 * deletes. What it is for, fewer objects promoted under load, is measured by the bench.
 *
 * The cases run in order in a fresh thread (vitest.config.ts): the first needs the scope as Effect
 * made it.
 */
import { FiberRoots, Listener } from "@crm/http"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import fc from "fast-check"
import { expect, it } from "vitest"

/** Effect's set of root fibers, where `FiberRoots` finds it. */
const roots = (): unknown => {
  const store = (globalThis as Record<string, unknown>)["effect/GlobalValue"] as Map<unknown, { roots: unknown }>
  return store.get(Symbol.for("effect/FiberScope/Global"))?.roots
}

it("leaves Effect's set of root fibers as it is when only the listener is built", async () => {
  const before = roots()
  expect(before).toBeInstanceOf(Set)
  const served = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const app = () => Effect.succeed({ status: 204, headers: {}, body: "" })
        const context = yield* Layer.build(Listener.layer(app, { host: "127.0.0.1", port: 0 }))
        const { port } = yield* Effect.provide(Listener.Address, context)
        return yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/`).then((response) => response.status))
      })
    )
  )
  expect(served).toBe(204)
  expect(roots()).toBe(before)
})

it("swaps it when the layer is built", async () => {
  await Effect.runPromise(Effect.scoped(Layer.build(FiberRoots.layer)))
  expect(roots()).toBeInstanceOf(FiberRoots.LinkedFiberRoots)
})

it("keeps the root fibers running before the swap and tracks those started after it", async () => {
  const release = Effect.runSync(Deferred.make<void>())
  const before = Effect.runFork(Deferred.await(release))
  expect(FiberRoots.useLinkedFiberRoots()).toBe(true)
  // A second call finds the list in place.
  expect(FiberRoots.useLinkedFiberRoots()).toBe(true)
  const after = Effect.runFork(Deferred.await(release))
  const running = await Effect.runPromise(Fiber.roots)
  expect(running).toContain(before)
  expect(running).toContain(after)
  Effect.runSync(Deferred.succeed(release, undefined))
  await Effect.runPromise(Fiber.join(before))
  await Effect.runPromise(Fiber.join(after))
  const left = await Effect.runPromise(Fiber.roots)
  expect(left).not.toContain(before)
  expect(left).not.toContain(after)
})

it("answers as a Set does over any sequence of adds and deletes", () => {
  const items = Array.from({ length: 6 }, (_, n) => ({ n }))
  const operation = fc.record({ add: fc.boolean(), item: fc.integer({ min: 0, max: items.length - 1 }) })
  fc.assert(
    fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
      const linked = new FiberRoots.LinkedFiberRoots()
      const model = new Set<object>()
      for (const { add, item } of operations) {
        if (add) {
          linked.add(items[item]!)
          model.add(items[item]!)
        } else {
          expect(linked.delete(items[item]!)).toBe(model.delete(items[item]!))
        }
        expect(linked.size).toBe(model.size)
        expect([...linked]).toEqual([...model])
        for (const candidate of items) expect(linked.has(candidate)).toBe(model.has(candidate))
      }
    })
  )
})
