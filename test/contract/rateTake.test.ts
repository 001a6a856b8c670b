/**
 * What one rate take costs PostgreSQL (`crm_rate_take`, migrations 0002 and 0018), on PGlite and
 * the server. Every request takes, so its row's versions are the limiter's whole cost: a take that
 * admits writes its key's row once, and one that refuses writes nothing. Two writes per take (an
 * upsert that only locks, then the update) made the heap blocks visited per take grow with the
 * table's history, 7 to 250 in a minute of load (docs/benchmarks.md, eighth pass). The decisions
 * themselves are the model test's (test/model/RateLimiter.model.test.ts). The window is kept in
 * ascending order (migration 0029), which is what lets a take find the hits that left it by a
 * binary search: a hit from a process whose clock runs behind goes in its place.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { serverUrl } from "../support/pgDatabase.js"
import { pgliteStore, serverStore } from "../support/storages.js"

const engines: ReadonlyArray<{
  readonly name: string
  readonly skip: boolean
  readonly client: () => Layer.Layer<SqlClient.SqlClient, unknown>
}> = [
  { name: "pglite", skip: false, client: pgliteStore },
  { name: "postgres", skip: serverUrl === undefined, client: () => serverStore({ maxConnections: 1 }) }
]

for (const engine of engines) {
  describe.skipIf(engine.skip)(`crm_rate_take [${engine.name}]`, () => {
    it("writes the key's row once per admitted take and not at all when it refuses", async () => {
      const written = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            // The transaction's own counters (pg_stat_xact_*) see its writes before it ends.
            const writes = Effect.map(
              sql<{ n: string }>`SELECT (n_tup_ins + n_tup_upd)::text AS n FROM pg_stat_xact_user_tables
                WHERE relname = 'rate_windows'`,
              ([row]) => Number(row?.n ?? 0)
            )
            const take = (now: number) =>
              sql`SELECT admitted FROM crm_rate_take('probe', ${now}::bigint, 2, 60000::bigint, true)`
            return yield* sql.withTransaction(
              Effect.gen(function* () {
                const counts: Array<number> = []
                for (const now of [1_000, 2_000, 3_000]) {
                  yield* take(now)
                  counts.push(yield* writes)
                }
                return counts
              })
            )
          }).pipe(Effect.provide(engine.client()))
        )
      )
      // The first take inserts the row and writes the hit; the second writes; the third is refused.
      expect(written).toEqual([2, 3, 3])
    })

    it("leaves room on each page for its rows' next versions", async () => {
      const options = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            return yield* sql<{ options: ReadonlyArray<string> | null }>`
              SELECT reloptions AS options FROM pg_class WHERE relname = 'rate_windows'`
          }).pipe(Effect.provide(engine.client()))
        )
      )
      expect(options[0]?.options).toContain("fillfactor=50")
    })

    it("keeps the window in order when a take's clock runs behind another's", async () => {
      const seen = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const key = `order-${crypto.randomUUID()}`
            const take = (now: number) =>
              sql<{ admitted: boolean; remaining: number; retry_after_ms: string }>`
                SELECT admitted, remaining, retry_after_ms
                FROM crm_rate_take(${key}, ${now}::bigint, 3, 1000::bigint, true)`.pipe(
                Effect.map(([row]) => [row!.admitted, row!.remaining, Number(row!.retry_after_ms)])
              )
            const hits = sql<{ hits: ReadonlyArray<string> }>`SELECT hits FROM rate_windows WHERE key_id = ${key}`.pipe(
              Effect.map(([row]) => row!.hits.map(Number))
            )
            const decisions = []
            for (const now of [5_000, 5_600, 5_300, 5_450]) decisions.push(yield* take(now))
            const kept = yield* hits
            // At 6,250 the hit of 5,000 has left the window; at 6,260 three are in it again.
            decisions.push(yield* take(6_250))
            decisions.push(yield* take(6_260))
            return { decisions, kept, after: yield* hits }
          }).pipe(Effect.provide(engine.client()))
        )
      )
      expect(seen.kept).toEqual([5_000, 5_300, 5_600])
      expect(seen.decisions).toEqual([
        [true, 2, 0],
        [true, 1, 0],
        [true, 0, 0],
        // 5,000, 5,300 and 5,600 fill the window of 5,450: refused, and not written.
        [false, 0, 550],
        [true, 0, 0],
        [false, 0, 40]
      ])
      expect(seen.after).toEqual([5_300, 5_600, 6_250])
    })

    it("keeps a large window uncompressed, so a take copies it rather than compressing it again", async () => {
      const stored = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const key = `large-${crypto.randomUUID()}`
            // 600 hits, 4.8 kB: past the size at which a row's values are compressed or moved out.
            yield* sql`SELECT count(*) FROM generate_series(1, 600) AS n,
              LATERAL crm_rate_take(${key}, n::bigint, 1000, 60000::bigint, true)`
            return yield* sql<{ hits: number; compression: string | null }>`
              SELECT cardinality(hits) AS hits, pg_column_compression(hits) AS compression
              FROM rate_windows WHERE key_id = ${key}`
          }).pipe(Effect.provide(engine.client()))
        )
      )
      expect(stored).toEqual([{ hits: 600, compression: null }])
    })
  })
}
