/**
 * Signed cursors across processes on one PostgreSQL database (two server layers with their own
 * pools stand in for two processes): both sign with the one secret the database keeps, even when
 * they give out their first cursors at the same moment, so a walk may go on at either, and a
 * process started later (a restart) still accepts the cursors given out before.
 */
import pg from "pg"
import { afterAll, expect, it } from "vitest"
import { describeOnServer } from "../support/pgServer.js"
import { twoProcesses } from "../support/processes.js"
import { type Client, startServer, type TestServer } from "../support/server.js"
import { serverLayer } from "../support/storages.js"

describeOnServer("signed cursors on several processes", () => {
  const processes = twoProcesses()
  let later: TestServer | undefined
  // Before the two processes' own (registered first, run last), while the database is still there.
  afterAll(async () => {
    await later?.close()
  })

  const page = async (client: Client, cursor: string | null) => {
    const response = await client.get(
      `/contacts?order=updated_at&limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
    )
    expect(response.status, response.text).toBe(200)
    return response.body
  }

  it("walks one list across both processes and a later one, after first cursors given out at once", async () => {
    const { key } = await processes.a().tenant()
    const ids: Array<string> = []
    for (let n = 0; n < 5; n++)
      ids.push(
        (
          await processes
            .a()
            .as(key)
            .post("/contacts", { first_name: `C${n}` })
        ).body.id
      )

    // Neither process has a secret yet: each makes a candidate, and the database keeps one.
    const [fromA, fromB] = await Promise.all([page(processes.a().as(key), null), page(processes.b().as(key), null)])
    expect(fromA.next_cursor).toBe(fromB.next_cursor)
    const secrets = new pg.Client({ connectionString: processes.url() })
    await secrets.connect()
    try {
      expect((await secrets.query("SELECT count(*)::int AS n FROM cursor_secret")).rows[0].n).toBe(1)
    } finally {
      await secrets.end()
    }

    const seen: Array<string> = [...fromA.data.map((row: { id: string }) => row.id)]
    let cursor: string | null = fromA.next_cursor
    let turn = 0
    const given: Array<string> = []
    while (cursor !== null) {
      given.push(cursor)
      const next = await page((turn++ % 2 === 0 ? processes.b() : processes.a()).as(key), cursor)
      seen.push(...next.data.map((row: { id: string }) => row.id))
      cursor = next.next_cursor
    }
    // Contacts made in one millisecond sort by id, so compare as sets, each seen once.
    expect([...seen].sort()).toEqual([...ids].sort())

    // A process started after them (as after a restart) reads the same secret.
    await processes.a().close()
    later = await startServer(serverLayer(processes.url()))
    for (const earlier of given) expect((await page(later.as(key), earlier)).data).toHaveLength(1)
    const tampered = `${given[0]!.slice(0, -1)}${given[0]!.endsWith("A") ? "B" : "A"}`
    for (const server of [processes.b(), later]) {
      const refused = await server.as(key).get(`/contacts?order=updated_at&cursor=${tampered}`)
      expect(refused.status).toBe(422)
      expect(refused.body.detail.map((issue: { path: string }) => issue.path)).toEqual(["cursor"])
    }
  })
})
