/**
 * The organisation's business time: Effect's `Clock`, unless the organisation is in test mode with
 * its clock frozen, then the frozen instant. Services take dates they decide by from here; what
 * stays on real time (keys, rate and idempotency windows, retries, record timestamps) reads `Clock`.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { dateIn } from "../internal/dates.js"
import type { Organisation } from "../Organisation.js"

/** The organisation's business time in epoch milliseconds. */
export const millis = (organisation: Organisation): Effect.Effect<number> => {
  const frozenAt = organisation.test_clock?.frozen_at ?? null
  return frozenAt === null ? Clock.currentTimeMillis : Effect.succeed(Date.parse(frozenAt))
}

/** The organisation's business time as an ISO instant (UTC, milliseconds). */
export const iso = (organisation: Organisation): Effect.Effect<string> =>
  Effect.map(millis(organisation), (ms) => new Date(ms).toISOString())

/** Today (`YYYY-MM-DD`) in the organisation's time zone, by its business clock. */
export const today = (organisation: Organisation): Effect.Effect<string> =>
  Effect.map(millis(organisation), (ms) => dateIn(organisation.settings.timezone, ms))
