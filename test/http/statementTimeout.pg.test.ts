/**
 * A statement that goes silent on the PostgreSQL server is bounded: past the statement timeout the
 * server cancels it and the request answers 503 service_unavailable, as in an outage; the pool's
 * connection stays usable. The statement here waits for a lock another session holds.
 */
import * as StoragePg from "@crm/storage-pg"
import pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createServerDatabase, describeOnServer } from "../support/pgServer.js"
import { startServer, type TestServer } from "../support/server.js"

describeOnServer("a statement past the statement timeout", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  let server: TestServer | undefined
  let holder: pg.Client | undefined

  beforeAll(async () => {
    database = await createServerDatabase()
    server = await startServer(StoragePg.layerServer({ url: database.url, statementTimeoutMs: 300 }))
    holder = new pg.Client({ connectionString: database.url })
    await holder.connect()
  })
  afterAll(async () => {
    await holder?.end()
    await server?.close()
    await database?.drop()
  })

  it("answers 503 service_unavailable, and the next request is served once the statement can run", async () => {
    const { client, organisation } = await server!.tenant()
    expect((await client.post("/contacts", { first_name: "Before" })).status).toBe(201)

    // The organisation's lock, which every write's event append takes (`internal/organisationLock.ts`).
    const lock = "hashtextextended($1::text, 42::bigint)"
    await holder!.query(`SELECT pg_advisory_lock(${lock})`, [organisation.id])
    const stuck = await client.post("/contacts", { first_name: "Stuck" }, { "x-request-id": "stuck-write" })
    expect(stuck.status).toBe(503)
    expect(stuck.headers.get("retry-after")).toBe("5")
    expect(stuck.body).toEqual({ error: "service_unavailable", detail: expect.any(String), request_id: "stuck-write" })
    await holder!.query(`SELECT pg_advisory_unlock(${lock})`, [organisation.id])

    expect((await client.post("/contacts", { first_name: "After" })).status).toBe(201)
    const names = (await client.get("/contacts")).body.data.map((contact: any) => contact.first_name).sort()
    expect(names).toEqual(["After", "Before"])
  })
})
