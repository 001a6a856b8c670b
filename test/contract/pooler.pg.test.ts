/**
 * `pooler: "transaction"` (`CRM_DATABASE_POOLER`): what the store leaves on a server connection
 * between transactions, seen from PostgreSQL itself rather than through a pooler (CI runs the
 * whole store suite through PgBouncer too). Named statements stay on the connection that prepared
 * them, which a pooler in transaction mode hands to other clients: none may be left. And since the
 * statement timeout is then not sent, a role without one is named at start.
 */
import * as StoragePg from "@crm/storage-pg"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createServerDatabase, describeOnServer } from "../support/pgServer.js"

describeOnServer("a store behind a pooler in transaction mode", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined

  beforeAll(async () => {
    database = await createServerDatabase()
  })
  afterAll(async () => {
    await database?.drop()
  })

  /** Opens a one-connection store, runs a parameterised statement twice, and reads back what the connection holds. */
  const open = (pooler: StoragePg.Pooler) => {
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(message))
    })
    const prepared = Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      for (let n = 0; n < 2; n++) yield* sql`SELECT ${n}::int AS n`
      const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`
      return row!.n
    }).pipe(
      Effect.provide(StoragePg.layerServer({ url: database!.url, pooler, maxConnections: 1 })),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger))
    )
    return Effect.runPromise(Effect.map(prepared, (named) => ({ named, warnings })))
  }

  it("leaves no named statement on the connection, where without a pooler it names them", async () => {
    expect((await open("none")).named).toBeGreaterThan(0)
    expect((await open("transaction")).named).toBe(0)
  })

  it("says at start when the role sets no statement timeout, and not once it does", async () => {
    const without = await open("transaction")
    expect(without.warnings.join("\n")).toContain("statement_timeout")
    await Effect.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.unsafe(`ALTER DATABASE "${new URL(database!.url).pathname.slice(1)}" SET statement_timeout = '30s'`)
      ).pipe(Effect.provide(StoragePg.layerServer({ url: database!.url })))
    )
    expect((await open("transaction")).warnings).toEqual([])
    expect((await open("none")).warnings).toEqual([])
  })
})
