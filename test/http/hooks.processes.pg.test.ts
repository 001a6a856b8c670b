/**
 * The webhook dispatcher across processes on one PostgreSQL database (two server layers with their
 * own pools stand in for two processes): each event reaches each subscription once, a process
 * killed mid-delivery loses nothing, its lease runs out and the other process sends it, and with
 * both workers running, each hook's deliveries depend on that hook alone.
 */
import { Webhooks } from "@crm/core"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { clockAt } from "../support/clock.js"
import { deliveryIsolation, ISOLATION_OPTIONS } from "../support/hookIsolation.js"
import { createServerDatabase, describeOnServer } from "../support/pgServer.js"
import { startReceiver } from "../support/receiver.js"
import { startServer, type TestServer } from "../support/server.js"
import { serverLayer } from "../support/storages.js"

const dispatch = Effect.flatMap(Webhooks.Webhooks, (webhooks) => webhooks.dispatch)
const dispatchAt = (server: TestServer, ms: number, signal?: AbortSignal) =>
  server.run(dispatch.pipe(Effect.withClock(clockAt(ms))), signal === undefined ? {} : { signal })

// A long attempt timeout, so that only the kill ends the hanging attempt.
const TIMEOUT_MS = 60_000
const webhooks = { worker: false, allowPrivateTargets: true, timeoutMs: TIMEOUT_MS }

describeOnServer("webhook dispatch across server processes on one database", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  let a: TestServer | undefined
  let b: TestServer | undefined

  beforeAll(async () => {
    database = await createServerDatabase()
    a = await startServer(serverLayer(database.url), { webhooks })
    b = await startServer(serverLayer(database.url), { webhooks })
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await database?.drop()
  })

  it("delivers each event exactly once per subscription while both processes dispatch", async () => {
    const { client, key } = await a!.tenant()
    const receivers = [await startReceiver(), await startReceiver()]
    for (const receiver of receivers) {
      expect((await client.post("/hooks", { target_url: receiver.url, events: ["contact.created"] })).status).toBe(201)
    }
    for (let i = 0; i < 25; i++) await (i % 2 === 0 ? a! : b!).as(key).post("/contacts", { first_name: `C${i}` })

    for (let round = 0; round < 4; round++) {
      const now = Date.now()
      await Promise.all([dispatchAt(a!, now), dispatchAt(b!, now), dispatchAt(a!, now), dispatchAt(b!, now)])
    }
    for (const receiver of receivers) {
      const ids = receiver.received.map((request) => request.headers["x-service-event-id"] as string)
      expect(ids).toHaveLength(25)
      expect(new Set(ids).size).toBe(25)
      // One claimant per hook at a time keeps first attempts in event order across processes.
      expect(ids.map(BigInt)).toEqual([...ids.map(BigInt)].sort((x, y) => (x < y ? -1 : 1)))
      await receiver.close()
    }
  })

  it("retries on another process once the lease of a process killed mid-delivery has run out", async () => {
    const { client } = await a!.tenant()
    const receiver = await startReceiver()
    const hook = await client.post("/hooks", { target_url: receiver.url, events: ["contact.created"] })
    receiver.script("hang")
    await client.post("/contacts", { first_name: "Interrupted" })

    const now = Date.now()
    const kill = new AbortController()
    const killed = dispatchAt(a!, now, kill.signal).catch(() => "killed")
    await receiver.arrived(1)
    kill.abort()
    expect(await killed).toBe("killed")

    // Process A still holds the hook's lease: B finds nothing to do until it runs out.
    expect(await dispatchAt(b!, now + 1000)).toBe(0)
    const [pending] = (await client.get(`/hooks/${hook.body.id}/deliveries`)).body.data
    expect(pending).toMatchObject({ status: "pending", attempt_count: 0, attempts: [] })

    const leaseMs = 10 * TIMEOUT_MS + 30_000
    expect(await dispatchAt(b!, now + leaseMs + 1000)).toBe(1)
    expect(receiver.received).toHaveLength(2)
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body)
    const [delivered] = (await client.get(`/hooks/${hook.body.id}/deliveries`)).body.data
    expect(delivered).toMatchObject({ status: "succeeded", attempt_count: 1 })
    await receiver.close()
  })
})

describeOnServer("webhook delivery isolation across server processes on one database", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  let a: TestServer | undefined
  let b: TestServer | undefined

  beforeAll(async () => {
    database = await createServerDatabase()
    a = await startServer(serverLayer(database.url), ISOLATION_OPTIONS)
    b = await startServer(serverLayer(database.url), ISOLATION_OPTIONS)
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await database?.drop()
  })

  it("delivers each hook's events independently of slow, hanging, resetting and failing targets", () =>
    deliveryIsolation([a!, b!]))
})
