/**
 * A server on a primary with a hot standby (`CRM_TEST_STANDBY_URL`: a streaming standby of the
 * server the `*.pg.test.ts` suites run on, which CI makes with test/replica/standby.sh). GETs are
 * answered by the standby once it has replayed the reading key's last write: a key always reads
 * its own writes, another key's reads may lag (which is what shows the standby answers at all),
 * `/events` read through the standby misses and repeats nothing, and a standby behind or down
 * leaves the primary answering with readiness saying so. Replay is paused and resumed on the
 * standby to make it lag as long as a test needs.
 */
import * as StoragePg from "@crm/storage-pg"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServerDatabase, describeOnServer } from "../support/pgServer.js"
import { freePort, startServer, type TestServer } from "../support/server.js"

const standbyServer = process.env.CRM_TEST_STANDBY_URL || undefined

/** The same database on the standby's server. */
const onStandby = (url: string): string => {
  const standby = new URL(url)
  const server = new URL(standbyServer!)
  standby.host = server.host
  return standby.toString()
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Until `check` holds, or fails after `ms`. */
const eventually = async (check: () => Promise<boolean>, ms = 10_000) => {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) throw new Error("not within the time allowed")
    await sleep(20)
  }
}

/** The server's readiness: its status and body. */
const readiness = async (server: TestServer) => {
  const response = await fetch(`${server.url}/readyz`)
  return { status: response.status, body: (await response.json()) as any }
}

const suite = standbyServer === undefined ? describe.skip : describe

describeOnServer("a server with a hot standby", () => {
  suite(`reading from the standby${standbyServer === undefined ? " (CRM_TEST_STANDBY_URL is not set; skipped)" : ""}`, () => {
    let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
    let server: TestServer | undefined
    let standby: pg.Client | undefined
    const MAX_LAG_MS = 1500

    beforeAll(async () => {
      database = await createServerDatabase()
      const readUrl = onStandby(database.url)
      // The new database reaches the standby by replication.
      await eventually(async () => {
        const client = new pg.Client(readUrl)
        try {
          await client.connect()
          standby = client
          return true
        } catch {
          return false
        }
      })
      server = await startServer(StoragePg.layerServer({ url: database.url, readUrl, standbyMaxLagMs: MAX_LAG_MS }))
      await eventually(async () => (await readiness(server!)).body?.standby?.state === "ok")
    })
    afterAll(async () => {
      await standby?.query("SELECT pg_wal_replay_resume()")
      await standby?.end()
      await server?.close()
      await database?.drop()
    })

    const paused = async <A>(during: () => Promise<A>): Promise<A> => {
      await standby!.query("SELECT pg_wal_replay_pause()")
      try {
        return await during()
      } finally {
        await standby!.query("SELECT pg_wal_replay_resume()")
      }
    }

    it("answers a key's reads with its own writes, also while the standby replays nothing", async () => {
      const { client } = await server!.tenant()
      for (let n = 0; n < 50; n++) {
        const created = await client.post("/contacts", { first_name: `Own ${n}` })
        expect(created.status).toBe(201)
        expect((await client.get(`/contacts/${created.body.id}`)).status).toBe(200)
      }
      await paused(async () => {
        const created = await client.post("/contacts", { first_name: "Paused" })
        expect((await client.get(`/contacts/${created.body.id}`)).body.first_name).toBe("Paused")
        expect((await client.patch(`/contacts/${created.body.id}`, { first_name: "Renamed" })).status).toBe(200)
        expect((await client.get(`/contacts/${created.body.id}`)).body.first_name).toBe("Renamed")
        const listed = await client.get("/contacts?q=Renamed")
        expect(listed.body.data.map((contact: any) => contact.id)).toEqual([created.body.id])
      })
    })

    it("answers another key's reads from the standby, which may not have replayed the first key's writes yet", async () => {
      const { organisation, client: writer } = await server!.tenant()
      const key = await server!.admin.post(`/organisations/${organisation.id}/keys`, { scopes: ["read"] })
      const reader = server!.as(key.body.key)
      await eventually(async () => (await reader.get("/contacts")).status === 200)
      const created = await paused(async () => {
        const created = await writer.post("/contacts", { first_name: "Not yet" })
        expect((await reader.get(`/contacts/${created.body.id}`)).status).toBe(404)
        return created
      })
      await eventually(async () => (await reader.get(`/contacts/${created.body.id}`)).status === 200)
    })

    it("delivers every event through the standby once, in order, while writers write", async () => {
      const { organisation, client: writer } = await server!.tenant({ scopes: ["read", "write"] })
      const key = await server!.admin.post(`/organisations/${organisation.id}/keys`, { scopes: ["read"] })
      const poller = server!.as(key.body.key)
      const WRITES = 100
      const seen: Array<string> = []
      let since = "0"
      let writing = true
      const writers = (async () => {
        await Promise.all(
          Array.from({ length: 4 }, async (_, w) => {
            for (let n = 0; n < WRITES / 4; n++) {
              expect((await writer.post("/contacts", { first_name: `W${w}-${n}` })).status).toBe(201)
            }
          })
        )
        writing = false
      })()
      const poll = async () => {
        const page = await poller.get(`/events?since=${since}&limit=50`)
        expect(page.status).toBe(200)
        for (const event of page.body.data) seen.push(event.data.first_name)
        since = page.body.next_cursor
        return page.body.has_more as boolean
      }
      while (writing) await poll()
      await writers
      await eventually(async () => !(await poll()) && seen.length >= WRITES)
      expect(seen).toHaveLength(WRITES)
      expect(new Set(seen).size).toBe(WRITES)
      // The writer's own reads see everything it wrote: its pages are the whole history.
      const history: Array<string> = []
      for (let cursor = "0", more = true; more; ) {
        const page = await writer.get(`/events?since=${cursor}&limit=100`)
        history.push(...page.body.data.map((event: any) => event.data.first_name))
        cursor = page.body.next_cursor
        more = page.body.has_more
      }
      expect(seen).toEqual(history)
    })

    it("sends every read to the primary while the standby lags too far, and readiness says so", async () => {
      const { organisation, client: writer } = await server!.tenant()
      const key = await server!.admin.post(`/organisations/${organisation.id}/keys`, { scopes: ["read"] })
      const reader = server!.as(key.body.key)
      await paused(async () => {
        const created = await writer.post("/contacts", { first_name: "Behind" })
        // The primary moves on while the standby replays nothing: its lag grows past the bound.
        await eventually(async () => {
          await writer.post("/contacts", { first_name: "Filler" })
          return (await readiness(server!)).body?.standby?.state === "behind"
        })
        const ready = await readiness(server!)
        expect(ready.status).toBe(200)
        expect(ready.body.standby.lag_ms).toBeGreaterThan(MAX_LAG_MS)
        expect((await reader.get(`/contacts/${created.body.id}`)).status).toBe(200)
      })
      await eventually(async () => (await readiness(server!)).body?.standby?.state === "ok")
    })
  })

  describe("a standby that cannot be reached", () => {
    let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
    let server: TestServer | undefined

    beforeAll(async () => {
      database = await createServerDatabase()
      const nowhere = new URL(database.url)
      nowhere.port = String(await freePort())
      server = await startServer(StoragePg.layerServer({ url: database.url, readUrl: nowhere.toString() }))
    })
    afterAll(async () => {
      await server?.close()
      await database?.drop()
    })

    it("leaves the server ready, its reads answered by the primary, and readiness names it down", async () => {
      const { client } = await server!.tenant()
      const created = await client.post("/contacts", { first_name: "Primary" })
      expect((await client.get(`/contacts/${created.body.id}`)).status).toBe(200)
      expect((await client.get("/contacts")).body.data).toHaveLength(1)
      const ready = await readiness(server!)
      expect(ready.status).toBe(200)
      expect(ready.body).toEqual({ status: "ok", standby: { state: "down", lag_ms: null } })
    })
  })
})
