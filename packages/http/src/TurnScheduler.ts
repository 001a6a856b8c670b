/**
 * The scheduler of request fibers: one queue, run once per turn of the event loop, in its check
 * phase (`setImmediate`), after the turn's I/O callbacks have all run.
 *
 * Effect's default scheduler runs a resumed fiber in a microtask right after the I/O callback that
 * resumed it, through a runner kept per fiber. Measured against it side by side (docs/benchmarks.md,
 * ninth pass), one queue per turn took 8-13 % less server CPU per request under load, and the p99
 * of the writes, with the bare server on the same core, fell from 1.3-1.4x the bare server's to
 * 1.0-1.3x. Effect's own `makeBatched` over `setImmediate`, which still keeps a runner and an
 * immediate per fiber, took the tail away too but only about half the CPU.
 *
 * A task queued while the queue runs waits for the next turn, so that a fiber yielding again and
 * again (Effect's `shouldYield` after 2048 operations) lets the loop poll between its slices.
 * Request fibers all run at one priority, so tasks run in the order they were queued.
 */
import type * as Scheduler from "effect/Scheduler"
import { defaultShouldYield } from "effect/Scheduler"

export const make = (): Scheduler.Scheduler => {
  let queue: Array<Scheduler.Task> = []
  const run = () => {
    const tasks = queue
    queue = []
    for (const task of tasks) task()
  }
  return {
    scheduleTask: (task) => {
      if (queue.push(task) === 1) setImmediate(run)
    },
    shouldYield: defaultShouldYield
  }
}
