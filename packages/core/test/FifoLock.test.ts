import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as FifoLock from "../src/FifoLock.js"

type Command =
  | { readonly tag: "arrive" }
  | { readonly tag: "interrupt"; readonly pick: number }
  | { readonly tag: "finish" }

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constant({ tag: "arrive" as const }),
  fc.record({ tag: fc.constant("interrupt" as const), pick: fc.nat() }),
  fc.constant({ tag: "finish" as const })
)

/** Lets every fiber that can run do so. */
const settle = Effect.repeatN(Effect.yieldNow(), 5)

/**
 * Runs the commands against a lock and against a model of it (a holder and a queue in arrival
 * order): the order in which holders entered, and how many were ever inside at once.
 */
const play = (commands: ReadonlyArray<Command>) =>
  Effect.gen(function* () {
    const lock = FifoLock.make()
    const entered: Array<number> = []
    let inside = 0
    let most = 0
    const gates: Array<Deferred.Deferred<void>> = []
    const fibers: Array<Fiber.RuntimeFiber<void>> = []
    let holder: number | undefined
    const queue: Array<number> = []
    const expected: Array<number> = []
    const finish = Effect.gen(function* () {
      if (holder === undefined) return
      yield* Deferred.succeed(gates[holder]!, undefined)
      yield* Fiber.join(fibers[holder]!)
      holder = queue.shift()
      if (holder !== undefined) expected.push(holder)
      yield* settle
    })
    for (const step of commands) {
      if (step.tag === "arrive") {
        const id = fibers.length
        gates.push(yield* Deferred.make<void>())
        const work = Effect.gen(function* () {
          inside++
          most = Math.max(most, inside)
          entered.push(id)
          yield* Deferred.await(gates[id]!)
          inside--
        })
        fibers.push(yield* Effect.fork(lock.withLock(work)))
        yield* settle
        if (holder === undefined) {
          holder = id
          expected.push(id)
        } else queue.push(id)
      } else if (step.tag === "interrupt") {
        if (queue.length === 0) continue
        const [id] = queue.splice(step.pick % queue.length, 1)
        yield* Fiber.interrupt(fibers[id!]!)
        yield* settle
      } else yield* finish
    }
    while (holder !== undefined) yield* finish
    return { entered, expected, most }
  })

describe("FifoLock", () => {
  it("hands itself to the longest waiter, one holder at a time, skipping waiters interrupted before their turn", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 60 }), async (commands) => {
        const { entered, expected, most } = await Effect.runPromise(play(commands))
        expect(entered).toEqual(expected)
        expect(most).toBeLessThanOrEqual(1)
      }),
      { numRuns: 200 }
    )
  })

  it("is free again once every holder and waiter is gone", async () => {
    const lock = FifoLock.make()
    const gate = await Effect.runPromise(Deferred.make<void>())
    const holder = Effect.runFork(lock.withLock(Deferred.await(gate)))
    const waiters = Array.from({ length: 5 }, () => Effect.runFork(lock.withLock(Effect.void)))
    await Effect.runPromise(settle)
    await Effect.runPromise(Effect.forEach(waiters.slice(0, 3), Fiber.interrupt))
    await Effect.runPromise(Deferred.succeed(gate, undefined))
    await Effect.runPromise(Fiber.join(holder))
    await Effect.runPromise(Effect.forEach(waiters.slice(3), Fiber.join))
    // Taken at once: nobody holds it and nobody is queued before this.
    const taken = await Effect.runPromise(Effect.timeoutOption(lock.withLock(Effect.succeed("free")), "1 second"))
    expect(Option.getOrUndefined(taken)).toBe("free")
  })
})
