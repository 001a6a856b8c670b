/**
 * The expectations commands check, without a test runner: a mismatch is thrown, and fast-check
 * reports it with the command sequence and the path that replays it.
 */
import { type Errors, Events, type Organisation } from "@crm/core"
import * as Effect from "effect/Effect"

/** What the kernel did differs from what the model says it should. */
export class ModelMismatch extends Error {
  override readonly name = "ModelMismatch"
}

export const ensure = (condition: boolean, message: string): void => {
  if (!condition) throw new ModelMismatch(message)
}

/** Maps compare by their entries in key order; `undefined` is kept apart from a missing key. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Map
      ? [...v].sort(([a], [b]) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0))
      : v === undefined
        ? "(undefined)"
        : v
  )

/** `actual` deeply equal to `expected` (plain data, arrays and maps; objects built in the same key order). */
export const same = (actual: unknown, expected: unknown, what: string): void => {
  const got = canonical(actual)
  const wanted = canonical(expected)
  if (got !== wanted) throw new ModelMismatch(`${what}: expected ${wanted}, got ${got}`)
}

/** The organisation's event log, as `event:id` lines oldest first, equals the model's. */
export const sameEventLog = (
  organisationId: Organisation.OrganisationId,
  expected: ReadonlyArray<string>
): Effect.Effect<void, Errors.InvalidParameter | Errors.StorageError, Events.Events> =>
  Effect.map(
    Effect.flatMap(Events.Events, (log) => log.poll(organisationId, { since: "0", limit: 500 })),
    (page) =>
      same(
        page.data.map((e) => `${e.event}:${String(e.data.id)}`),
        expected,
        "the event log"
      )
  )
