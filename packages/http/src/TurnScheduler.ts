/**
 * The scheduler of request fibers: one queue, run once per turn of the event loop, in its check
 * phase (`setImmediate`), after the turn's I/O callbacks have all run.
 *
 * Effect's default scheduler runs a resumed fiber in a microtask right after the I/O callback that
 * resumed it, with a runner per fiber. Measured side by side (docs/benchmarks.md, ninth pass), one
 * queue per turn cost 5-20 % less server CPU per request under load, and its p99 under a shared core
 * fell from 1.2-1.4x the bare server's to 0.9-1.2x; Effect's own `makeBatched` over `setImmediate`
 * (still a runner, and an immediate, per fiber) gained most of the p99 but half the CPU.
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
