/** Clocks for tests that run kernel work at a chosen time. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

const realClock = Clock.make()

/** A clock stopped at `ms` (what the code under test reads as now); its sleeps still take real time. */
export const clockAt = (ms: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => ms,
  currentTimeMillis: Effect.succeed(ms),
  unsafeCurrentTimeNanos: () => BigInt(ms) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(ms) * 1_000_000n),
  sleep: (duration) => realClock.sleep(duration)
})
