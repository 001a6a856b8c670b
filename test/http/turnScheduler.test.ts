/**
 * The scheduler of request fibers (`TurnScheduler`): one queue run once per turn of the event loop.
 * What it is for, less CPU per request and a shorter tail under load, is measured by the bench;
 * here, that it keeps the order of the fibers' work and never holds the loop while a fiber keeps
 * yielding.
 */
import { TurnScheduler } from "@crm/http"
import * as Effect from "effect/Effect"
import { expect, it } from "vitest"

it("runs the work queued in a turn in the order it was queued, in the loop's check phase", async () => {
  const scheduler = TurnScheduler.make()
  const ran: Array<string> = []
  for (const name of ["a", "b", "c"]) scheduler.scheduleTask(() => ran.push(name), 0)
  // Not in a microtask: only once the current turn reaches its check phase.
  await Promise.resolve()
  expect(ran).toEqual([])
  await new Promise((resolve) => setImmediate(resolve))
  expect(ran).toEqual(["a", "b", "c"])
})

it("lets the event loop turn between the slices of a fiber that keeps yielding", async () => {
  let turns = 0
  let counting = true
  const count = () => {
    turns++
    if (counting) setImmediate(count)
  }
  setImmediate(count)
  const slices = 100
  const value = await Effect.runPromise(
    Effect.forEach(
      Array.from({ length: slices }, (_, n) => n),
      (n) => Effect.as(Effect.yieldNow(), n)
    ).pipe(
      Effect.map((ns) => ns.length),
      Effect.withScheduler(TurnScheduler.make())
    )
  )
  counting = false
  expect(value).toBe(slices)
  // Each slice queued while the queue ran waits for the next turn, which polls for I/O first.
  expect(turns).toBeGreaterThanOrEqual(slices)
})
