/** The event history as clients poll it: a numeric cursor, oldest first, thirty days kept. */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import { InvalidParameter, type StorageError } from "./Errors.js"
import { isEventName } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import type { EventPage, EventsQuery } from "./Events/EventSchemas.js"
import { operation } from "./internal/operation.js"
import type { OrganisationId } from "./Organisation.js"

export * from "./Events/EventCatalogue.js"
export * from "./Events/EventLog.js"
export * from "./Events/EventSchemas.js"
export * from "./Events/EventText.js"

export const RETENTION_DAYS = 30
const DAY_MS = 86_400_000

export class Events extends Context.Tag("@crm/core/Events")<
  Events,
  {
    readonly poll: (
      organisationId: OrganisationId,
      query: z.output<typeof EventsQuery>
    ) => Effect.Effect<EventPage, InvalidParameter | StorageError>
    /** The retention job: drops events older than thirty days. */
    readonly purge: Effect.Effect<number, StorageError>
  }
>() {}

const parseCursor = (since: string | undefined): bigint | undefined => {
  if (since === undefined || since === "") return 0n
  return /^\d{1,19}$/.test(since) ? BigInt(since) : undefined
}

export const make = Effect.gen(function* () {
  const log = yield* EventLog
  return Events.of({
    poll: operation("Events.poll")(function* (organisationId, query) {
      const since = parseCursor(query.since)
      if (since === undefined) {
        return yield* new InvalidParameter({
          detail: { parameter: "since", message: "since must be a non-negative integer cursor" }
        })
      }
      const event = query.event
      if (event !== undefined && !isEventName(event)) {
        return yield* new InvalidParameter({
          detail: { parameter: "event", message: `'${event}' is not an event of the catalogue` }
        })
      }
      const rows = yield* log.after(organisationId, { since, event, limit: query.limit })
      const data = rows.slice(0, query.limit)
      const last = data[data.length - 1]
      return { data, next_cursor: last === undefined ? since.toString() : last.id, has_more: rows.length > query.limit }
    }),
    purge: Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      return yield* log.purgeBefore(new Date(now - RETENTION_DAYS * DAY_MS).toISOString())
    }).pipe(Effect.withSpan("Events.purge"))
  })
})

export const layer = Layer.effect(Events, make)
