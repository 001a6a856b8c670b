/**
 * A mutual-exclusion lock that hands itself to the longest waiter: the in-memory store's units of
 * work and PGlite's one connection run in arrival order behind it. Effect 3's `Semaphore` wakes
 * every waiter on each release and lets them race: slower under contention (several times the
 * work of PGlite's statements themselves under dozens of waiting fibers) and in no order.
 *
 * The waiters are a singly linked queue, and a waiter leaves it pointing at nothing. Both matter to
 * the garbage collector, which keeps whatever an object in the old generation points at, dead or
 * not, until the next full collection. PGlite's lock kept its waiters in a `Set`: V8 rebuilds a
 * `Set`'s table as entries come and go, and a table left behind in the old generation still
 * pointed at the waiters it held, each holding its fiber, and so kept request after request (and
 * the next table) alive into the old generation: `GET /contacts/{id}` on PGlite promoted 2.4 KB a
 * request, a full collection every 2-3 s that held every request in flight, against 0.2 KB with
 * this queue (docs/benchmarks.md, issue 38's eighth pass). The memory store's own queue left a
 * dequeued waiter pointing at the next one: the same hazard, smaller.
 */
import * as Effect from "effect/Effect"

interface Waiter {
  /** Set before the waiter is woken, so that an interruption racing the hand-over passes the lock on. */
  granted: boolean
  /** Undefined once the waiter was interrupted before its turn: it is skipped when its turn comes. */
  wake: (() => void) | undefined
  next: Waiter | undefined
}

export interface FifoLock {
  /**
   * Waits for the lock; once it succeeds, the caller holds it until it calls `release`. Interrupted
   * while waiting, it gives up its place; interrupted as the lock is handed to it, it passes it on.
   */
  readonly acquire: Effect.Effect<void>
  readonly release: () => void
  /**
   * Holds the lock while `use` runs, uninterruptibly but for what `use` wraps in `restore` (the
   * caller's interruptibility), and releases it however `use` ends.
   */
  readonly holding: <A, E, R>(
    use: (restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
  /** `self` under the lock, as interruptible as the caller. */
  readonly withLock: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const make = (): FifoLock => {
  let held = false
  let first: Waiter | undefined
  let last: Waiter | undefined

  /** The first waiter still waiting, off the queue; those interrupted before it are dropped. */
  const dequeue = (): Waiter | undefined => {
    while (first !== undefined) {
      const waiter = first
      first = waiter.next
      waiter.next = undefined
      if (first === undefined) last = undefined
      if (waiter.wake !== undefined) return waiter
    }
    return undefined
  }

  const release = (): void => {
    const waiter = dequeue()
    if (waiter === undefined) {
      held = false
      return
    }
    waiter.granted = true
    waiter.wake?.()
  }

  const acquire = Effect.async<void>((resume) => {
    const waiter: Waiter = { granted: false, wake: () => resume(Effect.void), next: undefined }
    if (held) {
      if (last === undefined) first = waiter
      else last.next = waiter
      last = waiter
    } else {
      held = true
      waiter.granted = true
      resume(Effect.void)
    }
    return Effect.sync(() => {
      if (waiter.granted) release()
      else waiter.wake = undefined
    })
  })

  // `Effect.ensuring` with the release as it is: `Effect.addFinalizer` would snapshot the fiber's
  // FiberRefs to diff and patch them around a release that reads none (40-50 µs a statement).
  const released = Effect.sync(release)
  const holding: FifoLock["holding"] = (use) =>
    Effect.uninterruptibleMask((restore) => Effect.zipRight(restore(acquire), Effect.ensuring(use(restore), released)))

  return { acquire, release, holding, withLock: (self) => holding((restore) => restore(self)) }
}
