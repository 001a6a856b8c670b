import { Events } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import { deferOn, executeOn } from "./internal/execute.js"
import { organisationLock } from "./internal/organisationLock.js"
import { type EventRow, eventTable, toEvent } from "./internal/rows.js"
import { count, iso } from "./internal/storedValues.js"
import { json } from "./internal/values.js"

export interface EventLogOptions {
  /**
   * Serialise appends per organisation so that ids become visible in order (default true).
   * Turning it off exists only to show, in a test, that pollers then skip events.
   */
  readonly orderedEvents?: boolean
}

// Polled all the time, so sent as they are (`internal/execute.ts`). Why the organisation is a range: see `after` below.
// The payload as text: the column is `json`, so that is the text appended, passed on unparsed (`Events.renderEventPage`).
const AFTER = `SELECT ${eventTable.selected} FROM events
  WHERE organisation_id >= $1::uuid AND organisation_id <= $1::uuid AND id > $2::bigint
  ORDER BY organisation_id, id LIMIT $3`
const AFTER_OF_EVENT = `SELECT ${eventTable.selected} FROM events
  WHERE organisation_id >= $1::uuid AND organisation_id <= $1::uuid AND id > $2::bigint AND event = $4
  ORDER BY organisation_id, id LIMIT $3`

/** Ids are int8: a cursor past the largest (the wire allows 19 digits) has nothing after it. */
const MAX_ID = 9_223_372_036_854_775_807n

export const make = (
  options: EventLogOptions = {}
): Effect.Effect<Context.Tag.Service<typeof Events.EventLog>, never, SqlClient.SqlClient> =>
  Effect.map(SqlClient.SqlClient, (sql) => {
    const execute = executeOn(sql)
    // Inside a unit of work the append goes out with its COMMIT (`internal/execute.ts`), so the
    // lock below is held for no round trip of ours, and the unit saves one.
    const appendAtCommit = deferOn(sql)
    // A sequence hands out ids at INSERT but they become visible at COMMIT, in any order: a
    // poller that read id 7 while id 6 was still uncommitted would never see 6. Holding a
    // per-organisation lock from before the INSERT until COMMIT makes the allocation order the
    // commit order. This is why `append` is the last write of a unit of work (sent with its COMMIT):
    // the lock serialises the organisation's writers for as long as their transaction stays open.
    // The lock is taken by the appending statement itself (a volatile subquery is never inlined, and
    // the rows to insert are joined to it), so it costs no round trip of its own.
    const lock =
      options.orderedEvents === false
        ? "CROSS JOIN (SELECT $4::text) AS held" // the same parameters either way
        : `CROSS JOIN (SELECT ${organisationLock("$4")}) AS held`

    // One statement, atomic on its own (so outside a unit of work it needs no transaction), writes
    // the events and the webhook outbox: a delivery per hook the core's outbox rule selects
    // (`Webhooks.receives`: active, of a live key, subscribed to the event; said here in the joins,
    // so the rule costs no statement of its own, and the webhook storage contract holds this to it),
    // carrying the envelope serialised once, here (every attempt sends these very bytes).
    // The data travels as text (`json` keeps it as given), so the body is exactly
    // JSON.stringify({id, event, data, created_at}), what the memory store writes. The ordinal
    // keeps the ids in the order the events were given. Its text depends only on how many events
    // it appends, so it is made once per count and sent as it is (`internal/execute.ts`).
    const appendTexts = new Map<number, string>()
    const appendText = (count: number): string => {
      const known = appendTexts.get(count)
      if (known !== undefined) return known
      const rows = Array.from(
        { length: count },
        (_, n) => `($${5 + 3 * n}::integer, $${6 + 3 * n}::text, $${7 + 3 * n}::json)`
      )
      const text = `WITH appended AS (
          INSERT INTO events (organisation_id, event, data, created_at)
          SELECT $1::uuid, e.event, e.data, $2::timestamptz
          FROM (VALUES ${rows.join(", ")}) AS e (n, event, data) ${lock}
          ORDER BY e.n
          RETURNING id, event, data
        )
        INSERT INTO webhook_deliveries (id, organisation_id, hook_id, event_id, event, body, status,
          attempt_count, next_attempt_at, created_at)
        SELECT gen_random_uuid(), h.organisation_id, h.id, e.id, e.event,
          '{"id":"' || e.id || '","event":"' || e.event || '","data":' || e.data::text
            || ',"created_at":"' || $3::text || '"}',
          'pending', 0, $2::timestamptz, $2::timestamptz
        FROM appended e
        JOIN webhook_hooks h ON h.organisation_id = $1::uuid AND h.active AND e.event = ANY (h.events)
        JOIN api_keys k ON k.id = h.key_id AND k.revoked_at IS NULL`
      // A unit of work appends a handful of events; a bulk import may append more, once.
      if (count <= 16) appendTexts.set(count, text)
      return text
    }

    return Events.EventLog.of({
      append: (organisationId, events, at) =>
        events.length === 0
          ? Effect.void
          : appendAtCommit(appendText(events.length), [
              organisationId,
              at,
              iso(at),
              organisationId,
              ...events.flatMap((event, n) => [n, event.event, json(event.data)])
            ]).pipe(orStorageError("EventLog.append")),

      after: (organisationId, { event, limit, since }) =>
        since >= MAX_ID
          ? Effect.succeed([])
          : // The organisation as a range of one value, not an equality, and the order by it: with
            // `organisation_id = $1` the planner drops it from the ORDER BY (it is constant), and
            // both the primary key and `events_organisation_id` then give `ORDER BY id`; guessing
            // that a big organisation's rows fill the key's range, it walked the primary key from
            // the cursor, through every other organisation's newer events. `ORDER BY
            // organisation_id, id` under a range is an order only `events_organisation_id` gives,
            // and the scan starts at (organisation, cursor) and ends with the organisation.
            (event === undefined
              ? execute<EventRow>(AFTER, [organisationId, since.toString(), limit + 1])
              : execute<EventRow>(AFTER_OF_EVENT, [organisationId, since.toString(), limit + 1, event])
            ).pipe(
              Effect.map((rows) => rows.map(toEvent)),
              orStorageError("EventLog.after")
            ),

      purgeBefore: (at) =>
        sql<{ n: string }>`WITH purged AS (DELETE FROM events WHERE created_at < ${at}::timestamptz RETURNING 1)
          SELECT count(*) AS n FROM purged`.pipe(
          Effect.map(([row]) => count(row.n)),
          orStorageError("EventLog.purgeBefore")
        )
    })
  })

export const layer = (options: EventLogOptions = {}): Layer.Layer<Events.EventLog, never, SqlClient.SqlClient> =>
  Layer.effect(Events.EventLog, make(options))
