/**
 * The PostgreSQL server store on both of its statement paths (`StoragePg.Statements`), through a
 * `pg` pool as it runs in production, not PGlite:
 * - the whole storage contract on each path, where the suite runs without DATABASE_URL (as
 *   `npm test` does), on the server at 127.0.0.1:5432 when one answers. With DATABASE_URL the
 *   contract's own files run it there on both paths (`test/support/contract.ts`), CI's PostgreSQL
 *   pass included, so this file leaves it to them;
 * - what the switch changes: the fast path prepares its statements on its connection, the plain
 *   path prepares none (on DATABASE_URL's server, else the local one).
 * Each run has a fresh database of its own (a copy of the run's template), dropped after. Where no server answers, the cases are
 * skipped, and a skipped case's title says why.
 */
import { Ids, Organisation, Transaction } from "@crm/core"
import { runStorageContract } from "@crm/testing/contract"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterAll, beforeAll, expect, it } from "vitest"
import { sharedStore } from "../../../test/support/contract.js"
import { serverUrl } from "../../../test/support/pgDatabase.js"
import { createServerDatabase, describeOnServer } from "../../../test/support/pgServer.js"
import * as StoragePg from "../src/index.js"

let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
const urlOf = (): string => {
  if (database === undefined) throw new Error("the test database was not made")
  return database.url
}

const paths: ReadonlyArray<StoragePg.Statements> = ["fast", "plain"]

describeOnServer("the PostgreSQL server store on both statement paths", () => {
  beforeAll(async () => {
    database = await createServerDatabase()
  })
  afterAll(() => database?.drop())

  // With DATABASE_URL the contract's own files run it on both paths (`test/support/contract.ts`).
  if (serverUrl === undefined) {
    for (const statements of paths) {
      runStorageContract(
        `postgres, ${statements} statements`,
        sharedStore(() => StoragePg.layerServer({ url: urlOf(), statements }))
      )
    }
  }

  /** The statements prepared on the store's one connection after a parameterised statement of a port. */
  const preparedAfterALock = (statements?: StoragePg.Statements) =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const options = { url: urlOf(), maxConnections: 1, ...(statements === undefined ? {} : { statements }) }
          const context = yield* Layer.build(StoragePg.layerServer(options))
          const organisationId = Ids.brand(Organisation.OrganisationId, crypto.randomUUID())
          yield* Context.get(context, Transaction.Transaction).lockKey(organisationId, "probe")
          const sql = Context.get(context, SqlClient.SqlClient)
          const rows = yield* sql<{ readonly name: string }>`SELECT name FROM pg_prepared_statements`
          return rows.map((row) => row.name)
        })
      )
    )

  it("fast, the default: a parameterised statement is prepared on its connection, under a name of ours", async () => {
    for (const statements of ["fast", undefined] as const) {
      const names = await preparedAfterALock(statements)
      expect(names.length).toBeGreaterThan(0)
      for (const name of names) expect(name).toMatch(/^crm_/)
    }
  })

  it("plain: nothing is prepared, every statement goes unnamed through @effect/sql-pg", async () => {
    expect(await preparedAfterALock("plain")).toEqual([])
  })
})
