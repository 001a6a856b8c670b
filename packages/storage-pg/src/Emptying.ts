/**
 * Taking a migrated store back to just after its migrations, for test suites that reuse one
 * database instead of making one per case (the storage contract, a test worker's PGlite): every
 * table but the migrations' record emptied, every sequence restarted (event ids, ledger positions)
 * as in a new store.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { forgetAll } from "./internal/KeyCache.js"
import { TABLE } from "./Migrations.js"

/**
 * Reads the schema once and gives the statement that empties it. `DELETE`, referencing tables
 * first, rather than `TRUNCATE`: PGlite's `TRUNCATE` makes new files for every table (160-330 ms
 * for the 41 tables, against 15-30 ms), and this needs no superuser to switch foreign keys off.
 */
export const emptying: Effect.Effect<Effect.Effect<void, SqlError>, SqlError, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* sql<{ readonly name: string; readonly refs: ReadonlyArray<string> }>`
      SELECT t.tablename AS name,
        ARRAY(SELECT DISTINCT c.confrelid::regclass::text FROM pg_constraint c
              WHERE c.contype = 'f' AND c.conrelid = format('%I', t.tablename)::regclass
                AND c.confrelid <> c.conrelid) AS refs
      FROM pg_tables t
      WHERE t.schemaname = current_schema() AND t.tablename <> ${TABLE}`
    const referencedBy = new Map(tables.map((table) => [table.name, [] as Array<string>]))
    for (const table of tables) for (const ref of table.refs) referencedBy.get(ref)?.push(table.name)
    // Post-order over "is referenced by": a table comes after every table that references it.
    const seen = new Set<string>()
    const order: Array<string> = []
    const visit = (name: string) => {
      if (seen.has(name)) return
      seen.add(name)
      for (const referrer of referencedBy.get(name) ?? []) visit(referrer)
      order.push(name)
    }
    for (const table of tables) visit(table.name)
    return sql
      .unsafe(`
        ${order.map((name) => `DELETE FROM "${name}";`).join("\n")}
        SELECT setval(format('%I', sequencename)::regclass, start_value, false)
        FROM pg_sequences WHERE schemaname = current_schema();`)
      .pipe(
        // The keys are gone: none of this client's caches may answer for them (`KeyCache.forgetAll`).
        Effect.zipRight(Effect.sync(() => forgetAll(sql)))
      )
  }
)
