/**
 * Effect's set of root fibers, swapped for a linked list (`FiberRoots`): the same set to Effect
 * (`Fiber.roots`) and, as a collection, the same answers as a `Set` over any sequence of adds and
 * deletes. What it is for, fewer objects promoted under load, is measured by the bench.
 */
import { FiberRoots } from "@crm/http"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import fc from "fast-check"
import { expect, it } from "vitest"

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
