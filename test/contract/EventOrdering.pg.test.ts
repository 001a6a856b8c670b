/**
 * A poller following `GET /events` must never skip an event. Sequence ids are handed out at
 * INSERT but become visible at COMMIT, in any order; the PostgreSQL adapter therefore serialises
 * appends per organisation until commit. This test races committing writers against a poller on
 * a real server, with the lock (nothing skipped, nothing twice) and without it (events skipped),
 * so that it would notice if the lock stopped working or stopped mattering.
 */
import { Events, Ids, Organisation, Transaction } from "@crm/core"
import * as StoragePg from "@crm/storage-pg"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { expect, it } from "vitest"
import { describeOnServer, freshServerDatabase } from "../support/pgServer.js"

const WRITERS = 40

interface Outcome {
  /** Writer numbers in the order the poller saw their events. */
  readonly seen: ReadonlyArray<number>
  /** Writer numbers of every event committed. */
  readonly committed: ReadonlyArray<number>
}

const randomMs = (max: number) => Math.floor(Math.random() * (max + 1))

/** Writers each append one event and hold their transaction open a few ms; a poller follows the cursor. */
const race = Effect.gen(function* () {
  const log = yield* Events.EventLog
  const tx = yield* Transaction.Transaction
  const organisationId = Ids.brand(Organisation.OrganisationId, crypto.randomUUID())

  const writer = (n: number) =>
    Effect.sleep(randomMs(20)).pipe(
      Effect.zipRight(
        tx.run(
          Effect.zipRight(
            log.append(organisationId, [{ event: "contact.created", data: { writer: n } }], new Date().toISOString()),
            // Work after the append keeps the transaction (and its id) uncommitted a little longer.
            Effect.sleep(randomMs(8))
          )
        )
      )
    )

  const seen = yield* Ref.make<ReadonlyArray<number>>([])
  const cursor = yield* Ref.make(0n)
  const poll = Effect.gen(function* () {
    const rows = yield* log.after(organisationId, { since: yield* Ref.get(cursor), event: undefined, limit: 100 })
    if (rows.length === 0) return
    yield* Ref.update(seen, (before) => [...before, ...rows.map((row) => row.data.writer as number)])
    yield* Ref.set(cursor, BigInt(rows[rows.length - 1].id))
  })

  const poller = yield* Effect.fork(Effect.forever(Effect.zipRight(poll, Effect.sleep(1))))
  yield* Effect.all(
    Array.from({ length: WRITERS }, (_, n) => writer(n)),
    { concurrency: "unbounded", discard: true }
  )
  yield* Fiber.interrupt(poller)
  // Everything has committed: a last poll from the cursor picks up what arrived after the
  // poller's final read, but can never bring back an id the cursor already passed.
  yield* poll

  const committed = yield* log.after(organisationId, { since: 0n, event: undefined, limit: WRITERS * 2 })
  return {
    seen: yield* Ref.get(seen),
    committed: committed.map((row) => row.data.writer as number)
  } satisfies Outcome
})

/**
 * An append goes out with its unit's COMMIT, so the time between an id being handed out and
 * becoming visible is only what the server spends in between: too short for forty writers to
 * overlap in it reliably. A trigger that lingers a few ms after each event's INSERT (once the id
 * is taken, before the COMMIT) widens it, for both cases alike: with the lock, the writers queue
 * behind it; without, later ids commit while earlier ones linger.
 */
const LINGER = [
  `CREATE FUNCTION test_linger() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN PERFORM pg_sleep(random() * 0.008); RETURN NULL; END $$`,
  "CREATE TRIGGER test_linger AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION test_linger()"
]

const onServer = (orderedEvents: boolean) =>
  Layer.unwrapScoped(
    Effect.map(freshServerDatabase(), (database) => {
      const store = StoragePg.layerServer({ url: database.url, maxConnections: WRITERS + 5, orderedEvents })
      const linger = Layer.effectDiscard(
        Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(LINGER, (statement) => sql.unsafe(statement)))
      )
      return Layer.provideMerge(linger, store)
    })
  )

const run = <A, E>(effect: Effect.Effect<A, E, StoragePg.Ports>, orderedEvents: boolean) =>
  Effect.runPromise(Effect.provide(effect, onServer(orderedEvents)))

const sorted = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)

describeOnServer("event ids become visible in order (PostgreSQL server)", () => {
  it("a poller following the cursor sees every committed event exactly once", async () => {
    const outcomes = await run(Effect.all(Array.from({ length: 3 }, () => race)), true)
    for (const outcome of outcomes) {
      expect(outcome.committed).toHaveLength(WRITERS)
      expect(sorted(outcome.seen)).toEqual(sorted(outcome.committed))
      // The lock makes commit order the id order, so the poller's order is the id order too.
      expect(outcome.seen).toEqual(outcome.committed)
    }
  })

  it("without the per-organisation lock the same poller skips events", async () => {
    // A skip needs an unlucky interleaving, which forty lingering writers produce almost every
    // time; a few attempts make "never skipped" a real finding rather than bad luck.
    const skipped = await run(
      Effect.gen(function* () {
        for (let attempt = 0; attempt < 5; attempt++) {
          const outcome = yield* race
          expect(outcome.committed).toHaveLength(WRITERS)
          const missing = WRITERS - new Set(outcome.seen).size
          if (missing > 0) return missing
        }
        return 0
      }),
      false
    )
    expect(skipped).toBeGreaterThan(0)
  })
})
