/**
 * A test clock moved through one process is the business time on every other at once: the
 * organisation (with its clock) is cached with each key, and the move announces itself as a
 * settings change does (two server layers with their own pools stand in for two processes).
 */
import pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createServerDatabase, describeOnServer } from "../support/pgServer.js"
import { startServer, type TestServer } from "../support/server.js"
import { serverLayer } from "../support/storages.js"
import { onOneDay } from "../support/today.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const WORK = { name: "Work", quantity: 1, unit_price: 100, vat_rate: 21 }

describeOnServer("a test clock on several processes", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  let a: TestServer | undefined
  let b: TestServer | undefined
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

  /** Resolves once `server` answers `key` from its cache (a rename behind its back goes unseen). */
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

  it("dates by a clock frozen, advanced and reset on one process at once on the other", () =>
    onOneDay("UTC", async (today) => {
      const org = await a!.admin.post("/organisations", { name: "Sandbox", test_mode: true })
      expect(org.status, org.text).toBe(201)
      const created = await a!.admin.post(`/organisations/${org.body.id}/keys`, {
        scopes: ["read", "write", "invoices:write"]
      })
      const key = created.body.key as string
      await untilCached(a!, key)
      await untilCached(b!, key)
      const issueDate = async () => {
        const draft = await b!.as(key).post("/invoices", { items: [WORK] })
        expect(draft.status, draft.text).toBe(201)
        return draft.body.issue_date
      }

      expect(
        (await a!.admin.post(`/organisations/${org.body.id}/clock`, { frozen_at: "2030-03-10T12:00:00Z" })).status
      ).toBe(200)
      expect(await issueDate()).toBe("2030-03-10")
      expect((await a!.admin.post(`/organisations/${org.body.id}/clock`, { advance_by: "P2D" })).status).toBe(200)
      expect(await issueDate()).toBe("2030-03-12")
      expect((await a!.admin.delete(`/organisations/${org.body.id}/clock`)).status).toBe(200)
      expect(await issueDate()).toBe(today)
    }))
})
