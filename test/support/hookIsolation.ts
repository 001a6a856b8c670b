/**
 * Issue 13's scenario: five hooks of one key on `contact.created`, one receiver each (answers at
 * once; never answers; answers slowly; drops the connection; answers 500 to the first sight of each
 * event, then 200), twenty contacts, the servers' own workers delivering. Run on every store, and
 * with two server processes on one PostgreSQL database.
 */
import { setTimeout as sleep } from "node:timers/promises"
import { Webhooks } from "@crm/core"
import { expect, vi } from "vitest"
import { type Received, startReceiver } from "./receiver.js"
import type { ServerTestOptions, TestServer } from "./server.js"

/**
 * The attempt timeout is long enough for the healthy hook to take all twenty events before the
 * hanging target's first attempt gives up, which is what shows that it holds back nobody.
 */
const TIMEOUT_MS = 5000
const SLOW_MS = 100
const EVENTS = 20

export const ISOLATION_OPTIONS: ServerTestOptions = {
  webhooks: { pollIntervalMs: 50, allowPrivateTargets: true, timeoutMs: TIMEOUT_MS }
}

const eventIdOf = (request: Received) => request.headers["x-service-event-id"] as string

export const deliveryIsolation = async (servers: ReadonlyArray<TestServer>): Promise<void> => {
  const { client, key } = await servers[0]!.tenant()
  const receivers = {
    healthy: await startReceiver(),
    hanging: await startReceiver(() => "hang"),
    slow: await startReceiver(() => ({ status: 200, body: "ok", after: sleep(SLOW_MS) })),
    resetting: await startReceiver(() => "reset"),
    flaky: await startReceiver((request, received) =>
      received.filter((seen) => eventIdOf(seen) === eventIdOf(request)).length === 1
        ? { status: 500, body: "try again" }
        : { status: 200, body: "ok" }
    )
  }
  const hooks: Record<string, string> = {}
  for (const [name, receiver] of Object.entries(receivers)) {
    const hook = await client.post("/hooks", { target_url: receiver.url, events: ["contact.created"] })
    expect(hook.status).toBe(201)
    hooks[name] = hook.body.id
  }
  for (let i = 0; i < EVENTS; i++) {
    const created = await servers[i % servers.length]!.as(key).post("/contacts", { first_name: `C${i}` })
    expect(created.status).toBe(201)
  }
  const events = await client.get(`/events?since=0&event=contact.created&limit=${EVENTS}`)
  const emitted: Array<string> = events.body.data.map((event: { id: string }) => event.id)
  expect(emitted).toHaveLength(EVENTS)
  const deliveries = async (name: string): Promise<Array<Webhooks.Delivery>> =>
    (await client.get(`/hooks/${hooks[name]}/deliveries?limit=50`)).body.data

  // Every event reaches the healthy target, in order and one at a time, while the hanging one
  // still holds the very first request it got.
  await receivers.healthy.arrived(EVENTS)
  expect(receivers.hanging.received).toHaveLength(1)
  expect(receivers.hanging.open()).toBe(1)
  expect(receivers.healthy.received.map(eventIdOf)).toEqual(emitted)
  expect(receivers.healthy.mostOpen()).toBe(1)

  // The slow target gets every event too, in order, at its own pace.
  await receivers.slow.arrived(EVENTS)
  expect(receivers.slow.received.map(eventIdOf)).toEqual(emitted)

  // The flaky target gets each event again after its first retry step.
  await receivers.flaky.arrived(2 * EVENTS)
  const flakyIds = receivers.flaky.received.map(eventIdOf)
  expect([...new Set(flakyIds)]).toEqual(emitted)
  for (const id of emitted) expect(flakyIds.filter((seen) => seen === id)).toHaveLength(2)
  await vi.waitFor(async () => {
    for (const delivery of await deliveries("flaky")) {
      expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 2 })
      expect(delivery.attempts.map((attempt) => attempt.status_code)).toEqual([500, 200])
      const [first, retry] = delivery.attempts.map((attempt) => Date.parse(attempt.attempted_at))
      expect(retry! - first!).toBeGreaterThanOrEqual(Webhooks.RetryLadder.LADDER_MS[1]!)
    }
  })

  // What the hanging and the resetting targets got is in their delivery logs, with the error.
  await vi.waitFor(
    async () => {
      const attempted = (await deliveries("hanging")).flatMap((delivery) => delivery.attempts)
      expect(attempted.length).toBeGreaterThan(0)
      for (const attempt of attempted) {
        expect(attempt).toMatchObject({ status_code: null, response_excerpt: null })
        expect(attempt.error).toBe(`timed out after ${TIMEOUT_MS} ms`)
      }
    },
    { timeout: 4 * TIMEOUT_MS, interval: 200 }
  )
  const reset = (await deliveries("resetting")).flatMap((delivery) => delivery.attempts)
  expect(reset.length).toBeGreaterThanOrEqual(Webhooks.Circuit.OPEN_AFTER)
  for (const attempt of reset) {
    expect(attempt.status_code).toBeNull()
    expect(attempt.error).toMatch(/socket hang up|ECONNRESET/)
  }
  // Its circuit opened after three: of twenty events, it was tried three times, and a probe at most.
  expect((await client.get(`/hooks/${hooks.resetting}`)).body.paused_until).not.toBeNull()
  expect(receivers.resetting.received.length).toBeLessThanOrEqual(Webhooks.Circuit.OPEN_AFTER + 1)

  for (const [name, receiver] of Object.entries(receivers)) {
    await client.delete(`/hooks/${hooks[name]}`)
    await receiver.close()
  }
}
