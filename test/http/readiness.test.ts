/**
 * Readiness follows the schema as well as the connection: a server whose database lacks a
 * migration of this build (started before `crm migrate` ran, or on a database restored from an
 * older backup) is alive but not ready, and ready once the migration is applied.
 */
import * as StoragePg from "@crm/storage-pg"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkedFetch } from "../support/responseCheck.js"
import { startServer, type TestServer } from "../support/server.js"

const names = Object.keys(StoragePg.migrations)
const last = names[names.length - 1]!
const allButLast = Object.fromEntries(Object.entries(StoragePg.migrations).slice(0, -1))

describe("readiness on a database that lacks the last migration [pglite]", () => {
  const scope = Effect.runSync(Scope.make())
  let sql: SqlClient.SqlClient
  let server: TestServer | undefined
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
    Effect.runPromise(Effect.provideService(effect, SqlClient.SqlClient, sql))

  beforeAll(async () => {
    sql = await Effect.runPromise(Scope.extend(StoragePg.PgliteClient.make(), scope))
    // The migrator's own run, as `crm migrate` of the previous build did it, into the table ours reads.
    await run(Migrator.make({})({ loader: Migrator.fromRecord(allButLast), table: "crm_migrations" }))
    // The ports alone, as `layerWith` gives them: nothing migrates on the way up.
    const storage = StoragePg.layerWith().pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql)))
    server = await startServer(storage, { webhooks: { worker: false } })
  })
  afterAll(async () => {
    await server?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("answers 503 service_unavailable with Retry-After until the migration is applied, alive throughout", async () => {
    for (let i = 0; i < 2; i++) {
      const notReady = await checkedFetch(`${server!.url}/readyz`, { headers: { "x-request-id": "not-ready" } })
      expect(notReady.status).toBe(503)
      expect(notReady.headers.get("retry-after")).toBe("5")
      const body = await notReady.json()
      expect(body).toEqual({ error: "service_unavailable", detail: expect.any(String), request_id: "not-ready" })
      // Which migrations are missing is the operator's business.
      expect(JSON.stringify(body)).not.toContain(last)
    }
    const alive = await checkedFetch(`${server!.url}/healthz`)
    expect(alive.status).toBe(200)

    const applied = await run(StoragePg.migrate)
    expect(applied.map(([, name]) => name)).toEqual([last.replace(/^\d+_/, "")])
    const ready = await checkedFetch(`${server!.url}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: "ok" })
  })

  it("remembers once every migration is there: a ready process asks only whether the store answers", async () => {
    expect((await checkedFetch(`${server!.url}/readyz`)).status).toBe(200)
    // Forgetting the migration in the table is not undoing it; the probe does not look again.
    await run(SqlClient.SqlClient.pipe(Effect.flatMap((client) => client`DELETE FROM crm_migrations`)))
    expect((await checkedFetch(`${server!.url}/readyz`)).status).toBe(200)
  })
})
