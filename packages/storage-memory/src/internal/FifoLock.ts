/**
 * A mutual-exclusion lock that hands itself to the longest waiter. Effect 3's `Semaphore` wakes
 * every waiter on each release and lets them race, which is slower under contention and gives no
 * ordering; units of work here must run in arrival order.
 */
import * as Effect from "effect/Effect"

interface Waiter {
  // "granted" is set before the waiter is resumed, so an interruption that races the hand-off
  // can tell that it now owns the lock and must pass it on.
  state: "waiting" | "granted" | "cancelled"
  resume: (() => void) | undefined
  next: Waiter | undefined
}

export interface FifoLock {
  readonly withLock: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const make = (): FifoLock => {
  let held = false
  let head: Waiter | undefined
  let tail: Waiter | undefined

  const release = (): void => {
    // Cancelled waiters stay in the list (O(1) cancellation) and are skipped here.
    while (head !== undefined) {
      const waiter = head
      head = waiter.next
      if (head === undefined) tail = undefined
      if (waiter.state === "waiting") {
        waiter.state = "granted"
        waiter.resume?.()
        return
      }
    }
    held = false
  }

  const acquire: Effect.Effect<void> = Effect.suspend(() => {
    if (!held) {
      held = true
      return Effect.void
    }
    const waiter: Waiter = { state: "waiting", resume: undefined, next: undefined }
    if (tail === undefined) head = waiter
    else tail.next = waiter
    tail = waiter
    return Effect.async<void>((resume) => {
      if (waiter.state === "granted") resume(Effect.void)
      else waiter.resume = () => resume(Effect.void)
    }).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          if (waiter.state === "granted") release()
          else waiter.state = "cancelled"
        })
      )
    )
  })

  return {
    withLock: (self) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(restore(acquire), Effect.ensuring(restore(self), Effect.sync(release)))
      )
  }
}
