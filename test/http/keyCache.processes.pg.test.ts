/**
 * The API key cache across processes on one PostgreSQL database (two server layers with their own
 * pools stand in for two processes). Each case first proves that the caches really answer (a change
 * made behind their back, without raising the organisation's `access_version`, goes unseen), then
 * that a change made on the other process, or by SQL that raises it, applies to the next request.
 */
import pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createServerDatabase, describeOnServer } from "../support/pgServer.js"
import { startServer, type TestServer } from "../support/server.js"
import { serverLayer } from "../support/storages.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describeOnServer("the API key cache on several processes", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  let a: TestServer | undefined
  let b: TestServer | undefined
  // What an operator's psql would be: a plain connection to the same database.
  let outside: pg.Client | undefined

  beforeAll(async () => {
    database = await createServerDatabase()
    a = await startServer(serverLayer(database.url))
    b = await startServer(serverLayer(database.url))
    outside = new pg.Client({ connectionString: database.url })
    await outside.connect()
  })
  afterAll(async () => {
    await outside?.end()
    await a?.close()
    await b?.close()
    await database?.drop()
  })

  /**
   * Resolves once `server` answers `key` from its cache: the organisation's name, changed by SQL
   * without raising its access version, still reads as before. The name is put back before returning, so the cached
   * entry and the database agree again.
   */
  const untilCached = async (server: TestServer, key: string, within = 15_000) => {
    const deadline = Date.now() + within
    // At least once, however short the time given.
    do {
      const before = await server.as(key).get("/me")
      expect(before.status).toBe(200)
      const { id, name } = before.body.organisation
      await outside!.query("UPDATE organisations SET name = 'changed behind its back' WHERE id = $1", [id])
      const after = await server.as(key).get("/me")
      await outside!.query("UPDATE organisations SET name = $2 WHERE id = $1", [id, name])
      if (after.status === 200 && after.body.organisation.name === name) return
      await sleep(100)
    } while (Date.now() < deadline)
    throw new Error(`${server.url} never answered from its cache`)
  }

  it("refuses a key revoked on one process at once on the other", async () => {
    const { key, keyId } = await a!.tenant()
    await untilCached(a!, key)
    await untilCached(b!, key)
    expect((await a!.admin.delete(`/keys/${keyId}`)).status).toBe(204)
    const onB = await b!.as(key).get("/me")
    expect(onB.status).toBe(401)
    expect(onB.body.error).toBe("invalid_api_key")
    expect((await a!.as(key).get("/me")).status).toBe(401)
  })

  it("applies settings changed on one process at once on the other: read-only plan, timezone", async () => {
    const { organisation, key } = await a!.tenant()
    await untilCached(a!, key)
    await untilCached(b!, key)
    expect((await b!.as(key).post("/contacts", { first_name: "Before" })).status).toBe(201)

    const frozen = {
      ...organisation.settings,
      timezone: "Europe/Prague",
      plan: { ...organisation.settings.plan, read_only: true }
    }
    expect((await a!.admin.put(`/organisations/${organisation.id}/settings`, frozen)).status).toBe(200)
    const refused = await b!.as(key).post("/contacts", { first_name: "During" })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ error: "plan_refused", detail: "READ_ONLY" })
    expect((await b!.as(key).get("/me")).body.organisation.timezone).toBe("Europe/Prague")

    await untilCached(b!, key)
    const thawed = { ...frozen, plan: { ...frozen.plan, read_only: false } }
    expect((await a!.admin.put(`/organisations/${organisation.id}/settings`, thawed)).status).toBe(200)
    expect((await b!.as(key).post("/contacts", { first_name: "After" })).status).toBe(201)
  })

  it("accepts a key created on one process at once on the other", async () => {
    const { organisation, key } = await a!.tenant()
    await untilCached(b!, key)
    const created = await a!.admin.post(`/organisations/${organisation.id}/keys`, { scopes: ["read"] })
    expect(created.status).toBe(201)
    expect((await b!.as(created.body.key).get("/me")).status).toBe(200)
    expect((await a!.as(created.body.key).get("/me")).status).toBe(200)
  })

  it("follows a change made by SQL outside the API once the organisation's access_version is raised", async () => {
    const { organisation, key, keyId } = await a!.tenant()
    await untilCached(b!, key)
    await outside!.query(
      `UPDATE organisations SET settings = jsonb_set(settings, '{plan,read_only}', 'true') WHERE id = $1`,
      [organisation.id]
    )
    // Unannounced, the change waits for the entry's maximum age (untilCached showed as much)...
    expect((await b!.as(key).post("/contacts", { first_name: "A" })).status).toBe(201)
    // ...announced, it applies to the next request.
    await outside!.query("UPDATE organisations SET access_version = access_version + 1 WHERE id = $1", [
      organisation.id
    ])
    expect((await b!.as(key).post("/contacts", { first_name: "A" })).body).toMatchObject({
      error: "plan_refused",
      detail: "READ_ONLY"
    })

    await untilCached(b!, key)
    await outside!.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [keyId])
    await outside!.query("UPDATE organisations SET access_version = access_version + 1 WHERE id = $1", [
      organisation.id
    ])
    expect((await b!.as(key).get("/me")).status).toBe(401)
  })

  it("keeps answering from its cache after the process was starved of CPU, and still refuses a revoked key at once", async () => {
    const { key, keyId } = await a!.tenant()
    await untilCached(b!, key)
    // What a process sharing its core with a busy one lives through: seconds without the CPU.
    const until = Date.now() + 4000
    while (Date.now() < until) {}
    await untilCached(b!, key, 0)
    expect((await a!.admin.delete(`/keys/${keyId}`)).status).toBe(204)
    expect((await b!.as(key).get("/me")).status).toBe(401)
  })

  it("holds no LISTEN connection, so that a pooler in transaction mode changes nothing", async () => {
    const { key } = await a!.tenant()
    await untilCached(a!, key)
    await untilCached(b!, key)
    const listening = await outside!.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`
    )
    expect(listening.rows[0].n).toBe(0)
  })
})
