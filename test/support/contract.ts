/**
 * Runs some of `@crm/testing`'s storage contract suites on every store, a describe block each.
 *
 * Every case still starts on an empty store, but a PostgreSQL store (PGlite or a server database)
 * is made once per block and emptied before each case: loading PGlite's data directory cost about
 * a second per case, most of the suite's time, where emptying the tables costs milliseconds. The
 * memory store is cheap to make and is made per case.
 */
import type { Kernel } from "@crm/core"
import * as StoragePg from "@crm/storage-pg"
import { runStorageContract, type SuiteName } from "@crm/testing/contract"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe } from "vitest"
import { pgliteStore, type StorageCase, serverStore, storages } from "./storages.js"

/**
 * One statement that takes the store back to just after its migrations: every table but the
 * migrations' record emptied, every sequence restarted (event ids, ledger positions) as in a new store.
 * `DELETE`, referencing tables first, rather than `TRUNCATE`: PGlite's `TRUNCATE` makes new files
 * for every table (160-330 ms for the 41 tables, against 15-30 ms), and this needs no superuser
 * to switch foreign keys off.
 */
const emptyingStatement = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const tables = yield* sql<{ readonly name: string; readonly refs: ReadonlyArray<string> }>`
      SELECT t.tablename AS name,
        ARRAY(SELECT DISTINCT c.confrelid::regclass::text FROM pg_constraint c
              WHERE c.contype = 'f' AND c.conrelid = format('%I', t.tablename)::regclass
                AND c.confrelid <> c.conrelid) AS refs
      FROM pg_tables t
      WHERE t.schemaname = current_schema() AND t.tablename <> ${StoragePg.MIGRATIONS_TABLE}`
    // A table is emptied before the tables it references.
    const referencedBy = new Map(tables.map((table) => [table.name, [] as Array<string>]))
    for (const table of tables) for (const ref of table.refs) referencedBy.get(ref)?.push(table.name)
    const seen = new Set<string>()
    const order: Array<string> = []
    const visit = (name: string) => {
      if (seen.has(name)) return
      seen.add(name)
      for (const referrer of referencedBy.get(name) ?? []) visit(referrer)
      order.push(name)
    }
    for (const table of tables) visit(table.name)
    return `
      ${order.map((name) => `DELETE FROM "${name}";`).join("\n")}
      SELECT setval(format('%I', sequencename)::regclass, start_value, false)
      FROM pg_sequences WHERE schemaname = current_schema();`
  })

/** The block's one store, emptied each time a case builds the layer. */
const sharedStore = (
  store: () => Layer.Layer<Kernel.StoragePorts | SqlClient.SqlClient, unknown>
): (() => Layer.Layer<Kernel.StoragePorts, unknown>) => {
  const scope = Effect.runSync(Scope.make())
  let built: { readonly context: Context.Context<Kernel.StoragePorts>; readonly empty: Effect.Effect<unknown, unknown> }
  beforeAll(() =>
    Effect.runPromise(
      Effect.gen(function* () {
        const context = yield* Layer.buildWithScope(store(), scope)
        const sql = Context.get(context, SqlClient.SqlClient)
        const statement = yield* emptyingStatement(sql)
        built = { context, empty: sql.unsafe(statement) }
      })
    )
  )
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  return () => Layer.effectContext(Effect.suspend(() => Effect.as(built.empty, built.context)))
}

const layerOf = (storage: StorageCase): (() => Layer.Layer<Kernel.StoragePorts, unknown>) => {
  switch (storage.name) {
    case "memory":
      return storage.fresh
    case "pglite":
      return sharedStore(pgliteStore)
    case "postgres":
      return sharedStore(() => serverStore())
  }
}

export const contractOnEveryStore = (title: string, suites: ReadonlyArray<SuiteName>) => {
  for (const storage of storages) {
    describe(`${title} [${storage.name}]`, () => runStorageContract(storage.name, layerOf(storage), { suites }))
  }
}
