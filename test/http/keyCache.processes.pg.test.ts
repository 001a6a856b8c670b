/**
 * The API key cache across processes on one PostgreSQL database (two server layers with their own
 * pools stand in for two processes). Each case first proves that the caches really answer (a change
 * made behind their back, without a NOTIFY, goes unseen), then that a change made on the other
 * process, or by SQL plus a NOTIFY from outside, is seen at once, and that a lost LISTEN
 * connection stops the cache from answering instead of leaving it stale.
 */
import * as StoragePg from "@crm/storage-pg"
import pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createServerDatabase, describeOnServer } from "../support/pgServer.js"
import { startServer, type TestServer } from "../support/server.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describeOnServer("the API key cache on several processes", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  let a: TestServer | undefined
  let b: TestServer | undefined
  // What an operator's psql would be: a plain connection to the same database.
  let outside: pg.Client | undefined

  beforeAll(async () => {
    database = await createServerDatabase()
    a = await startServer(StoragePg.layerServer({ url: database.url }))
    b = await startServer(StoragePg.layerServer({ url: database.url }))
    outside = new pg.Client({ connectionString: database.url })
    await outside.connect()
  })
  afterAll(async () => {
    await outside?.end()
    await a?.close()
    await b?.close()
    await database?.drop()
  })

  const listeners = async (): Promise<ReadonlyArray<number>> =>
    (
      await outside!.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %crm_access%'`
      )
    ).rows.map((row) => row.pid)

  /**
   * Resolves once `server` answers `key` from its cache: the organisation's name, changed by SQL
   * without a NOTIFY, still reads as before. The name is put back before returning, so the cached
   * entry and the database agree again.
   */
  const untilCached = async (server: TestServer, key: string, within = 15_000) => {
    const deadline = Date.now() + within
    while (Date.now() < deadline) {
      const before = await server.as(key).get("/me")
      expect(before.status).toBe(200)
      const { id, name } = before.body.organisation
      await outside!.query("UPDATE organisations SET name = 'changed behind its back' WHERE id = $1", [id])
      const after = await server.as(key).get("/me")
      await outside!.query("UPDATE organisations SET name = $2 WHERE id = $1", [id, name])
      if (after.status === 200 && after.body.organisation.name === name) return
      await sleep(100)
    }
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

  it("follows a change made by SQL outside the API once it is announced with NOTIFY", async () => {
    const { organisation, key, keyId } = await a!.tenant()
    await untilCached(b!, key)
    await outside!.query(
      `UPDATE organisations SET settings = jsonb_set(settings, '{plan,read_only}', 'true') WHERE id = $1`,
      [organisation.id]
    )
    // Unannounced, the change waits for the entry's maximum age (untilCached showed as much)...
    await outside!.query("SELECT pg_notify('crm_access', $1)", [`org:${organisation.id}`])
    // ...announced, it is seen at once. The notification is asynchronous even here: allow it a moment.
    let refused = await b!.as(key).post("/contacts", { first_name: "A" })
    for (let i = 0; i < 20 && refused.status !== 403; i++) {
      await sleep(25)
      refused = await b!.as(key).post("/contacts", { first_name: "A" })
    }
    expect(refused.body).toMatchObject({ error: "plan_refused", detail: "READ_ONLY" })

    // A payload the cache does not know (what an operator would send by hand) drops everything.
    await untilCached(b!, key)
    await outside!.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [keyId])
    await outside!.query("NOTIFY crm_access, 'all'")
    let revoked = await b!.as(key).get("/me")
    for (let i = 0; i < 20 && revoked.status !== 401; i++) {
      await sleep(25)
      revoked = await b!.as(key).get("/me")
    }
    expect(revoked.status).toBe(401)
  })

  it("refuses a revoked key at once even when a LISTEN connection has died, and caches again once it is back", async () => {
    const first = await a!.tenant()
    const second = await a!.tenant()
    const third = await a!.tenant()
    await untilCached(a!, first.key)
    await untilCached(b!, first.key)
    await untilCached(a!, second.key)
    await untilCached(b!, second.key)
    const before = await listeners()
    expect(before).toHaveLength(2)

    // One listener's connection dies (a failover, a proxy, pg_terminate_backend): its process
    // misses the NOTIFY, and nothing tells it so (the stream stays open). The newest LISTEN is
    // B's unless one was restarted; the guarantee must hold whichever it is.
    const newest = await outside!.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE pid = ANY($1::int[]) ORDER BY backend_start DESC LIMIT 1",
      [before]
    )
    const killed = newest.rows[0].pid
    await outside!.query("SELECT pg_terminate_backend($1)", [killed])
    expect((await a!.admin.delete(`/keys/${first.keyId}`)).status).toBe(204)
    // The revocation waited for the process that could not acknowledge it only until that
    // process's cache stopped answering (3 s), not until it listens again (after 10 s of silence).
    expect(await listeners()).toEqual(before.filter((pid) => pid !== killed))
    expect((await b!.as(first.key).get("/me")).status).toBe(401)
    expect((await a!.as(first.key).get("/me")).status).toBe(401)

    // Both die, the writer's too: it cannot even know who was caching, and waits the 3 s out.
    await outside!.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [await listeners()])
    expect((await a!.admin.delete(`/keys/${second.keyId}`)).status).toBe(204)
    // Again before the listener killed just now is replaced (the one killed first may be back).
    expect((await listeners()).length).toBeLessThan(2)
    expect((await b!.as(second.key).get("/me")).status).toBe(401)
    expect((await a!.as(second.key).get("/me")).status).toBe(401)

    // New LISTENs replace the dead ones (after 10 s without an echo), and the caches answer again.
    await untilCached(a!, third.key, 40_000)
    await untilCached(b!, third.key, 40_000)
    const after = await listeners()
    expect(after).toHaveLength(2)
    expect(after.filter((pid) => before.includes(pid))).toEqual([])
  }, 120_000)

  it("closes its LISTEN connection with the server", async () => {
    const count = (await listeners()).length
    const c = await startServer(StoragePg.layerServer({ url: database!.url }))
    const { key } = await c.tenant()
    await untilCached(c, key)
    expect((await listeners()).length).toBe(count + 1)
    await c.close()
    let now = (await listeners()).length
    for (let i = 0; i < 100 && now !== count; i++) {
      await sleep(50)
      now = (await listeners()).length
    }
    const activity = await outside!.query(
      "SELECT pid, backend_start, state, query FROM pg_stat_activity WHERE datname = current_database()"
    )
    expect(now, JSON.stringify(activity.rows)).toBe(count)
  })
})
