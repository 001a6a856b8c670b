/**
 * REST hooks: subscriptions per API key, the target rules, and delivery to a local receiver. Most
 * suites turn the dispatcher's worker off: each test runs dispatch rounds itself, under a clock it
 * sets, so retries, Retry-After, pauses and the rotation overlap are driven by time without waiting
 * for it. The last suites run the worker, to show how it shares itself out among hooks.
 */
import { setTimeout as sleep } from "node:timers/promises"
import { Webhooks } from "@crm/core"
import { WebhookSender } from "@crm/server"
import * as StorageMemory from "@crm/storage-memory"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import Stripe from "stripe"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { clockAt } from "../support/clock.js"
import { deliveryIsolation, ISOLATION_OPTIONS } from "../support/hookIsolation.js"
import { startReceiver } from "../support/receiver.js"
import { type Client, startServer, type TestServer } from "../support/server.js"
import { storages } from "../support/storages.js"
import { onEveryStore } from "../support/suite.js"

/** A receiver's check, as a promise. */
const verifySignature = (...args: Parameters<typeof Webhooks.verifySignature>) =>
  Effect.runPromise(Webhooks.verifySignature(...args))

const HOOK_FIELDS = [
  "active",
  "created_at",
  "disabled_reason",
  "events",
  "id",
  "paused_until",
  "target_url",
  "updated_at"
]
const PUBLIC_TARGET = "https://1.1.1.1/hooks/crm"

/** One dispatch round as if it ran at `ms`; returns the attempts it made. */
const dispatchAt = (server: TestServer, ms: number) =>
  server.run(Effect.flatMap(Webhooks.Webhooks, (webhooks) => webhooks.dispatch).pipe(Effect.withClock(clockAt(ms))))

const eventsOf = async (client: Client, name: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0&event=${name}`)
  expect(page.status).toBe(200)
  return page.body.data
}

onEveryStore(
  "hooks",
  (server) => {
    it("creates a subscription showing its secret once; reads, lists and deletes it", async () => {
      const { client } = await server().tenant()
      const created = await client.post("/hooks", {
        target_url: PUBLIC_TARGET,
        events: ["contact.created", "deal.won", "contact.created"]
      })
      expect(created.status).toBe(201)
      expect(Object.keys(created.body).sort()).toEqual([...HOOK_FIELDS, "previous_secret_expires_at", "secret"].sort())
      expect(created.body.secret).toMatch(/^whsec_[0-9A-Za-z]{43}$/)
      expect(created.body).toMatchObject({
        target_url: PUBLIC_TARGET,
        events: ["contact.created", "deal.won"],
        active: true,
        disabled_reason: null,
        paused_until: null,
        previous_secret_expires_at: null
      })

      const read = await client.get(`/hooks/${created.body.id}`)
      expect(read.status).toBe(200)
      expect(Object.keys(read.body).sort()).toEqual(HOOK_FIELDS)
      const list = await client.get("/hooks")
      expect(list.body).toMatchObject({ limit: 50, offset: 0, has_more: false })
      expect(list.body.data.map((hook: any) => hook.id)).toEqual([created.body.id])
      expect(list.text).not.toContain(created.body.secret)

      expect((await client.delete(`/hooks/${created.body.id}`)).status).toBe(204)
      expect((await client.get(`/hooks/${created.body.id}`)).status).toBe(404)
      expect((await client.delete(`/hooks/${created.body.id}`)).status).toBe(404)
    })

    it("shows each key only its own hooks", async () => {
      const { client, organisation } = await server().tenant()
      const other = await server().admin.post(`/organisations/${organisation.id}/keys`, { scopes: ["read", "write"] })
      const otherClient = server().as(other.body.key)
      const mine = await client.post("/hooks", { target_url: PUBLIC_TARGET, events: ["task.created"] })
      expect((await otherClient.get(`/hooks/${mine.body.id}`)).status).toBe(404)
      expect((await otherClient.delete(`/hooks/${mine.body.id}`)).status).toBe(404)
      expect((await otherClient.post(`/hooks/${mine.body.id}/rotate-secret`)).status).toBe(404)
      expect((await otherClient.get(`/hooks/${mine.body.id}/deliveries`)).status).toBe(404)
      expect((await otherClient.get("/hooks")).body.data).toEqual([])
    })

    it("needs write to change hooks and read to list them", async () => {
      const { client: reader } = await server().tenant({ scopes: ["read"] })
      const refused = await reader.post("/hooks", { target_url: PUBLIC_TARGET, events: ["task.created"] })
      expect(refused.status).toBe(403)
      expect(refused.body.error).toBe("missing_scope:write")
      expect((await reader.get("/hooks")).status).toBe(200)

      const { client: writer } = await server().tenant({ scopes: ["write"] })
      const hook = await writer.post("/hooks", { target_url: PUBLIC_TARGET, events: ["task.created"] })
      expect(hook.status).toBe(201)
      expect((await writer.get("/hooks")).body.error).toBe("missing_scope:read")
      expect((await writer.get(`/hooks/${hook.body.id}/deliveries`)).body.error).toBe("missing_scope:read")
      expect((await writer.post(`/hooks/${hook.body.id}/rotate-secret`)).status).toBe(200)
      expect((await writer.delete(`/hooks/${hook.body.id}`)).status).toBe(204)
    })

    it("refuses an event outside the catalogue with 404 unknown_event", async () => {
      const { client } = await server().tenant()
      const refused = await client.post("/hooks", {
        target_url: PUBLIC_TARGET,
        events: ["contact.created", "contact.merged"]
      })
      expect(refused.status).toBe(404)
      expect(refused.body.error).toBe("unknown_event")
      expect(refused.body.detail).toContain("contact.merged")
      const empty = await client.post("/hooks", { target_url: PUBLIC_TARGET, events: [] })
      expect(empty.status).toBe(422)
      expect((await client.get("/hooks")).body.data).toEqual([])
    })

    it("holds at most 20 hooks per key, also when they are created at once", async () => {
      const { client, organisation } = await server().tenant()
      const answers = await Promise.all(
        Array.from({ length: 25 }, () => client.post("/hooks", { target_url: PUBLIC_TARGET, events: ["deal.created"] }))
      )
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(20)
      const refused = answers.filter((answer) => answer.status === 409)
      expect(refused).toHaveLength(5)
      expect(refused[0]!.body.error).toBe("too_many_hooks")
      expect((await client.get("/hooks?limit=200")).body.data).toHaveLength(20)

      // The limit is per key: another key of the organisation still has room.
      const other = await server().admin.post(`/organisations/${organisation.id}/keys`, { scopes: ["read", "write"] })
      const more = await server()
        .as(other.body.key)
        .post("/hooks", { target_url: PUBLIC_TARGET, events: ["deal.created"] })
      expect(more.status).toBe(201)
    })

    it.each([
      ["not a url", "invalid_url"],
      ["ftp://1.1.1.1/", "scheme"],
      ["https://user:secret@1.1.1.1/", "credentials"],
      ["http://127.0.0.1/", "loopback"],
      ["http://2130706433/", "loopback"],
      ["http://0x7f.1/", "loopback"],
      ["http://017700000001/", "loopback"],
      ["http://127.1/", "loopback"],
      ["http://localhost:8080/", "loopback"],
      ["http://[::1]/", "loopback"],
      ["http://[::ffff:127.0.0.1]/", "loopback"],
      ["http://[2002:7f00:1::]/", "loopback"],
      ["http://[64:ff9b::a00:1]/", "private"],
      ["http://10.1.2.3/", "private"],
      ["http://172.16.0.1/", "private"],
      ["http://192.168.1.1/", "private"],
      ["http://[fd12:3456::1]/", "private"],
      ["http://169.254.169.254/latest/meta-data", "metadata"],
      ["http://[fd00:ec2::254]/", "metadata"],
      ["http://169.254.10.1/", "link_local"],
      ["http://[fe80::1]/", "link_local"],
      ["http://100.64.0.1/", "shared_address_space"],
      ["http://0.0.0.0/", "unspecified"],
      ["http://224.0.0.1/", "multicast"],
      ["http://255.255.255.255/", "broadcast"],
      ["http://240.0.0.1/", "reserved"]
    ])("refuses the target %s: 422 invalid_target_url naming the rule %s", async (target_url, rule) => {
      const { client } = await server().tenant()
      const refused = await client.post("/hooks", { target_url, events: ["contact.created"] })
      expect(refused.status).toBe(422)
      expect(refused.body.error).toBe("invalid_target_url")
      expect(refused.body.detail.rule).toBe(rule)
      expect(typeof refused.body.detail.message).toBe("string")
    })

    it("accepts public IPv4 and IPv6 targets over http while the CRM itself is not https", async () => {
      const { client } = await server().tenant()
      for (const target_url of ["http://1.1.1.1/", "https://[2606:4700:4700::1111]/crm"]) {
        expect((await client.post("/hooks", { target_url, events: ["contact.created"] })).status).toBe(201)
      }
    })

    it("changes only active (or enabled, its other name) on PATCH, refusing anything else", async () => {
      const { client } = await server().tenant()
      const hook = (await client.post("/hooks", { target_url: PUBLIC_TARGET, events: ["task.created"] })).body
      const patch = (body: unknown) => client.patch(`/hooks/${hook.id}`, body)
      const empty = await patch({})
      expect([empty.status, empty.body.error]).toEqual([422, "no_fields_to_update"])
      const moved = await patch({ target_url: PUBLIC_TARGET })
      expect([moved.status, moved.body.error]).toEqual([422, "no_fields_to_update"])
      const mixed = await patch({ active: true, target_url: PUBLIC_TARGET })
      expect([mixed.status, mixed.body.error]).toEqual([422, "validation_failed"])
      expect(JSON.stringify(mixed.body.detail)).toContain("target_url")
      const wrongType = await patch({ enabled: "yes" })
      expect([wrongType.status, wrongType.body.error]).toEqual([422, "validation_failed"])
      const disagreeing = await patch({ active: true, enabled: false })
      expect([disagreeing.status, disagreeing.body.error]).toEqual([422, "validation_failed"])
      expect(disagreeing.body.detail[0].path).toBe("enabled")

      // Asking for the state the hook is in changes nothing.
      const same = await patch({ active: true, enabled: true })
      expect(same.status).toBe(200)
      expect(same.body).toEqual((await client.get(`/hooks/${hook.id}`)).body)
      expect(same.body.updated_at).toBe(hook.updated_at)

      const { client: reader } = await server().tenant({ scopes: ["read"] })
      expect((await reader.patch(`/hooks/${hook.id}`, { active: false })).body.error).toBe("missing_scope:write")
      const { client: stranger } = await server().tenant()
      expect((await stranger.patch(`/hooks/${hook.id}`, { active: false })).status).toBe(404)
      expect((await client.patch(`/hooks/${crypto.randomUUID()}`, { active: false })).status).toBe(404)
      expect((await client.get(`/hooks/${hook.id}`)).body.active).toBe(true)
    })

    it("lets the admin API subscribe and list hooks for a key", async () => {
      const { client, keyId } = await server().tenant()
      const created = await server().admin.post(`/keys/${keyId}/hooks`, {
        target_url: PUBLIC_TARGET,
        events: ["invoice.issued"]
      })
      expect(created.status).toBe(201)
      expect(created.body.secret).toMatch(/^whsec_/)
      expect((await client.get(`/hooks/${created.body.id}`)).status).toBe(200)
      const listed = await server().admin.get(`/keys/${keyId}/hooks`)
      expect(listed.body.data.map((hook: any) => hook.id)).toEqual([created.body.id])
      const unknown = await server().admin.post(`/keys/${crypto.randomUUID()}/hooks`, {
        target_url: PUBLIC_TARGET,
        events: ["invoice.issued"]
      })
      expect(unknown.status).toBe(404)
    })
  },
  { webhooks: { worker: false } }
)

describe("hook targets when the CRM is served over https", () => {
  let server: TestServer | undefined
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer, {
      publicUrl: "https://crm.example.com",
      webhooks: { worker: false }
    })
  })
  afterAll(() => server?.close())

  it("refuses plain http targets (https_required) and accepts https ones", async () => {
    const { client } = await server!.tenant()
    const refused = await client.post("/hooks", { target_url: "http://1.1.1.1/", events: ["contact.created"] })
    expect(refused.status).toBe(422)
    expect(refused.body.detail.rule).toBe("https_required")
    expect((await client.post("/hooks", { target_url: PUBLIC_TARGET, events: ["contact.created"] })).status).toBe(201)
  })
})

const SECOND = 1000
const HOUR = 3600 * SECOND
const DAY = 24 * HOUR

/** Ladder steps plus their full jitter: a clock this far past an attempt finds the retry due. */
const pastRetry = (attempt: number) => Math.ceil(Webhooks.RetryLadder.LADDER_MS[attempt]! * 1.1) + SECOND

const signatures = (header: string) => header.split(",").filter((part) => part.startsWith("v1="))

onEveryStore(
  "hook deliveries",
  (server) => {
    /** A tenant, a receiver and a hook on it; the hook is deleted afterwards so later rounds skip it. */
    const subscribed = async (events: ReadonlyArray<string> = ["contact.created"]) => {
      const { client } = await server().tenant()
      const receiver = await startReceiver()
      const hook = await client.post("/hooks", { target_url: receiver.url, events })
      expect(hook.status).toBe(201)
      const deliveries = async () => (await client.get(`/hooks/${hook.body.id}/deliveries`)).body.data as Array<any>
      const done = async () => {
        await client.delete(`/hooks/${hook.body.id}`)
        await receiver.close()
      }
      return { client, receiver, hook: hook.body, deliveries, done }
    }

    it("posts the stored event envelope byte for byte, signed, with the event id in a header", async () => {
      const { client, receiver, hook, deliveries, done } = await subscribed()
      await client.post("/contacts", { first_name: "Ada", email: "ada@example.com" })
      await client.post("/tasks", { title: "not subscribed" })
      const now = Date.now()
      expect(await dispatchAt(server(), now)).toBe(1)

      expect(receiver.received).toHaveLength(1)
      const [request] = receiver.received
      const [event] = await eventsOf(client, "contact.created")
      expect(request!.body).toBe(JSON.stringify(event))
      expect(Object.keys(JSON.parse(request!.body))).toEqual(["id", "event", "data", "created_at"])
      expect(request!.headers["content-type"]).toBe("application/json")
      expect(request!.headers["x-service-event-id"]).toBe(event.id)
      const header = request!.headers["x-service-signature"] as string
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
      expect(header.startsWith(`t=${Math.floor(now / 1000)},`)).toBe(true)
      const at = { toleranceSeconds: 300, now: Math.floor(now / 1000) }
      expect(await verifySignature(request!.body, header, [hook.secret], at)).toBe(true)
      expect(await verifySignature(request!.body, header, ["whsec_other"], at)).toBe(false)
      expect(await verifySignature(`${request!.body} `, header, [hook.secret], at)).toBe(false)
      expect(await verifySignature(request!.body, header, [hook.secret], { ...at, now: at.now + 301 })).toBe(false)

      const [delivery] = await deliveries()
      expect(delivery).toMatchObject({
        hook_id: hook.id,
        event_id: event.id,
        event: "contact.created",
        status: "succeeded",
        attempt_count: 1,
        next_attempt_at: null
      })
      expect(delivery.attempts).toEqual([
        {
          attempted_at: new Date(now).toISOString(),
          status_code: 200,
          duration_ms: expect.any(Number),
          response_excerpt: "ok",
          error: null
        }
      ])
      expect(await dispatchAt(server(), now + DAY)).toBe(0)
      await done()
    })

    it("signs so that Stripe's verifier accepts it, and accepts what Stripe's helper signs", async () => {
      const { client, receiver, hook, done } = await subscribed()
      await client.post("/contacts", { first_name: "Grace" })
      await dispatchAt(server(), Date.now())
      const [request] = receiver.received
      const stripe = new Stripe("sk_test_unused")
      const event = stripe.webhooks.constructEvent(
        request!.body,
        request!.headers["x-service-signature"] as string,
        hook.secret
      )
      expect(event).toMatchObject({ event: "contact.created" })

      const timestamp = Math.floor(Date.now() / 1000)
      const header = stripe.webhooks.generateTestHeaderString({
        payload: request!.body,
        secret: hook.secret,
        timestamp
      })
      expect(await verifySignature(request!.body, header, hook.secret, { toleranceSeconds: 300, now: timestamp })).toBe(
        true
      )
      await done()
    })

    it("signs with the old and the new secret for 24 hours after a rotation, then with the new one only", async () => {
      const { client, receiver, hook, done } = await subscribed()
      const rotated = await client.post(`/hooks/${hook.id}/rotate-secret`)
      expect(rotated.status).toBe(200)
      expect(rotated.body.secret).not.toBe(hook.secret)
      const rotatedAt = Date.now()
      expect(Date.parse(rotated.body.previous_secret_expires_at) - rotatedAt).toBeGreaterThan(DAY - 60 * SECOND)
      expect(Object.keys((await client.get(`/hooks/${hook.id}`)).body)).not.toContain("secret")

      await client.post("/contacts", { first_name: "During" })
      const during = rotatedAt + 23 * HOUR
      await dispatchAt(server(), during)
      const overlap = receiver.received[0]!
      const overlapHeader = overlap.headers["x-service-signature"] as string
      expect(signatures(overlapHeader)).toHaveLength(2)
      const duringOptions = { toleranceSeconds: 300, now: Math.floor(during / 1000) }
      expect(await verifySignature(overlap.body, overlapHeader, hook.secret, duringOptions)).toBe(true)
      expect(await verifySignature(overlap.body, overlapHeader, rotated.body.secret, duringOptions)).toBe(true)

      await client.post("/contacts", { first_name: "After" })
      const after = rotatedAt + 25 * HOUR
      await dispatchAt(server(), after)
      const later = receiver.received[1]!
      const laterHeader = later.headers["x-service-signature"] as string
      expect(signatures(laterHeader)).toHaveLength(1)
      const afterOptions = { toleranceSeconds: 300, now: Math.floor(after / 1000) }
      expect(await verifySignature(later.body, laterHeader, rotated.body.secret, afterOptions)).toBe(true)
      expect(await verifySignature(later.body, laterHeader, hook.secret, afterOptions)).toBe(false)
      await done()
    })

    it("signs with both secrets from the moment of a rotation, also in a round already under way", async () => {
      const { client, receiver, hook, done } = await subscribed()
      let answerFirst: () => void = () => {}
      receiver.script({ status: 200, after: new Promise<void>((resolve) => (answerFirst = resolve)) })
      await client.post("/contacts", { first_name: "Before" })
      await client.post("/contacts", { first_name: "After" })
      const now = Date.now()
      const round = dispatchAt(server(), now)
      await receiver.arrived(1)
      // The round has claimed both deliveries and the first is in flight: now the secret changes.
      const rotated = await client.post(`/hooks/${hook.id}/rotate-secret`)
      expect(rotated.status).toBe(200)
      answerFirst()
      expect(await round).toBe(2)
      const second = receiver.received[1]!
      const header = second.headers["x-service-signature"] as string
      expect(signatures(header)).toHaveLength(2)
      const at = { toleranceSeconds: 300, now: Math.floor(now / 1000) }
      expect(await verifySignature(second.body, header, rotated.body.secret, at)).toBe(true)
      expect(await verifySignature(second.body, header, hook.secret, at)).toBe(true)
      await done()
    })

    it("sends nothing more to a hook deleted while a round is under way", async () => {
      const { client, receiver, hook, done } = await subscribed()
      let answerFirst: () => void = () => {}
      receiver.script({ status: 200, after: new Promise<void>((resolve) => (answerFirst = resolve)) })
      await client.post("/contacts", { first_name: "Sent" })
      await client.post("/contacts", { first_name: "Dropped" })
      const round = dispatchAt(server(), Date.now())
      await receiver.arrived(1)
      expect((await client.delete(`/hooks/${hook.id}`)).status).toBe(204)
      answerFirst()
      expect(await round).toBe(1)
      expect(receiver.received.map((request) => JSON.parse(request.body).data.first_name)).toEqual(["Sent"])
      await done()
    })

    it("retries after a 500 on the ladder (5 s plus jitter), recording every attempt", async () => {
      const { client, receiver, deliveries, done } = await subscribed()
      receiver.script({ status: 500, body: "x".repeat(3000) })
      await client.post("/contacts", { first_name: "Retry" })
      const now = Date.now()
      expect(await dispatchAt(server(), now)).toBe(1)
      const [failed] = await deliveries()
      expect(failed).toMatchObject({ status: "pending", attempt_count: 1 })
      const due = Date.parse(failed.next_attempt_at) - now
      expect(due).toBeGreaterThanOrEqual(5 * SECOND)
      expect(due).toBeLessThanOrEqual(5.5 * SECOND)
      expect(failed.attempts[0]).toMatchObject({ status_code: 500, error: null })
      expect(failed.attempts[0].response_excerpt).toBe("x".repeat(1024))

      expect(await dispatchAt(server(), now + SECOND)).toBe(0)
      expect(await dispatchAt(server(), now + pastRetry(1))).toBe(1)
      const [delivered] = await deliveries()
      expect(delivered).toMatchObject({ status: "succeeded", attempt_count: 2, next_attempt_at: null })
      expect(delivered.attempts.map((attempt: any) => attempt.status_code)).toEqual([500, 200])
      expect(receiver.received[0]!.body).toBe(receiver.received[1]!.body)
      await done()
    })

    it("records an answer whose body holds NUL bytes (a binary answer) and does not send the delivery again", async () => {
      const { client, receiver, deliveries, done } = await subscribed()
      receiver.script({ status: 200, body: "\u0000\u001f\u008bbinary\u0000" })
      await client.post("/contacts", { first_name: "Binary" })
      const now = Date.now()
      expect(await dispatchAt(server(), now)).toBe(1)
      const [delivery] = await deliveries()
      expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 1 })
      expect(delivery.attempts[0].status_code).toBe(200)
      expect(delivery.attempts[0].response_excerpt).toContain("binary")
      expect(delivery.attempts[0].response_excerpt).not.toContain("\u0000")
      expect(await dispatchAt(server(), now + DAY)).toBe(0)
      expect(receiver.received).toHaveLength(1)
      await done()
    })

    it("gives up on an attempt after the timeout and retries it", async () => {
      const { client, receiver, deliveries, done } = await subscribed()
      receiver.script("hang")
      await client.post("/contacts", { first_name: "Slow" })
      const now = Date.now()
      await dispatchAt(server(), now)
      const [timedOut] = await deliveries()
      expect(timedOut.status).toBe("pending")
      expect(timedOut.attempts[0]).toMatchObject({ status_code: null, response_excerpt: null })
      expect(timedOut.attempts[0].error).toMatch(/timed out after 300 ms/)
      await dispatchAt(server(), now + pastRetry(1))
      expect((await deliveries())[0]).toMatchObject({ status: "succeeded", attempt_count: 2 })
      await done()
    })

    it("waits as long as Retry-After asks on a 429 or 503", async () => {
      const { client, receiver, deliveries, done } = await subscribed()
      receiver.script(
        { status: 503, headers: { "retry-after": "120" } },
        { status: 429, headers: { "retry-after": "600" } }
      )
      await client.post("/contacts", { first_name: "Busy" })
      const now = Date.now()
      await dispatchAt(server(), now)
      expect((await deliveries())[0].next_attempt_at).toBe(new Date(now + 120 * SECOND).toISOString())
      expect(await dispatchAt(server(), now + 60 * SECOND)).toBe(0)
      expect(await dispatchAt(server(), now + 120 * SECOND)).toBe(1)
      expect((await deliveries())[0].next_attempt_at).toBe(new Date(now + 720 * SECOND).toISOString())
      expect(await dispatchAt(server(), now + 700 * SECOND)).toBe(0)
      expect(await dispatchAt(server(), now + 720 * SECOND)).toBe(1)
      expect((await deliveries())[0].status).toBe("succeeded")
      await done()
    })

    it("disables the subscription on a 410 Gone, visibly, and delivers nothing more to it", async () => {
      const { client, receiver, hook, deliveries, done } = await subscribed()
      receiver.script({ status: 410 })
      await client.post("/contacts", { first_name: "Gone" })
      await client.post("/contacts", { first_name: "Queued" })
      expect(await dispatchAt(server(), Date.now())).toBe(1)
      const disabled = (await client.get(`/hooks/${hook.id}`)).body
      expect(disabled.active).toBe(false)
      expect(disabled.disabled_reason).toMatch(/410/)
      const [queued, gone] = await deliveries()
      expect(gone).toMatchObject({ status: "failed", next_attempt_at: null, attempt_count: 1 })
      expect(queued).toMatchObject({ status: "failed", next_attempt_at: null, attempt_count: 0 })
      await client.post("/contacts", { first_name: "Later" })
      expect(await dispatchAt(server(), Date.now() + DAY)).toBe(0)
      expect(await deliveries()).toHaveLength(2)
      expect(receiver.received).toHaveLength(1)
      await done()
    })

    it("marks a delivery failed after the last step of the ladder, and redelivers it on request", async () => {
      const { client, receiver, hook, deliveries, done } = await subscribed()
      const attempts = Webhooks.RetryLadder.MAX_ATTEMPTS
      receiver.script(...Array.from({ length: attempts }, () => ({ status: 500 })))
      await client.post("/contacts", { first_name: "Never" })
      let at = Date.now()
      for (let attempt = 0; attempt < attempts; attempt++) {
        at += pastRetry(attempt)
        expect(await dispatchAt(server(), at)).toBe(1)
      }
      const [failed] = await deliveries()
      expect(failed).toMatchObject({ status: "failed", attempt_count: attempts, next_attempt_at: null })
      expect(failed.attempts).toHaveLength(attempts)
      expect((await client.get(`/hooks/${hook.id}`)).body.active).toBe(true)
      expect(await dispatchAt(server(), at + 30 * DAY)).toBe(0)

      const redelivered = await client.post(`/hooks/${hook.id}/deliveries/${failed.id}/redeliver`)
      expect(redelivered.status).toBe(200)
      expect(redelivered.body).toMatchObject({ id: failed.id, status: "pending" })
      expect(await dispatchAt(server(), Date.now())).toBe(1)
      expect((await deliveries())[0]).toMatchObject({ status: "succeeded", attempt_count: attempts + 1 })
      expect(receiver.received).toHaveLength(attempts + 1)

      expect((await client.post(`/hooks/${hook.id}/deliveries/${crypto.randomUUID()}/redeliver`)).status).toBe(404)
      await done()
    })

    it("opens a hook's circuit after three unanswered attempts: the rest wait for a pause that grows on the ladder", async () => {
      const { client, receiver, hook, deliveries, done } = await subscribed()
      receiver.script("hang", "hang", "hang", "hang")
      for (const name of ["One", "Two", "Three", "Four", "Five"]) await client.post("/contacts", { first_name: name })
      const now = Date.now()
      const pauseOf = async (from: number) =>
        Date.parse((await client.get(`/hooks/${hook.id}`)).body.paused_until) - from

      expect(await dispatchAt(server(), now)).toBe(Webhooks.Circuit.OPEN_AFTER)
      expect(await pauseOf(now)).toBeGreaterThanOrEqual(5 * SECOND)
      expect(await pauseOf(now)).toBeLessThanOrEqual(5.5 * SECOND)
      const waiting = await deliveries()
      expect(waiting.map((delivery) => [delivery.status, delivery.attempt_count])).toEqual([
        ["pending", 0],
        ["pending", 0],
        ["pending", 1],
        ["pending", 1],
        ["pending", 1]
      ])
      expect(waiting[2].attempts[0].error).toBe("timed out after 300 ms")
      // Four and Five have never been tried, but the pause holds them too.
      expect(await dispatchAt(server(), now + SECOND)).toBe(0)

      // The pause over, one probe goes; unanswered, it pauses the hook for the ladder's next step.
      const probeAt = now + pastRetry(1)
      expect(await dispatchAt(server(), probeAt)).toBe(1)
      expect(await pauseOf(probeAt)).toBeGreaterThanOrEqual(5 * 60 * SECOND)
      expect(await pauseOf(probeAt)).toBeLessThanOrEqual(5.5 * 60 * SECOND)
      expect(await dispatchAt(server(), probeAt + pastRetry(1))).toBe(0)

      // An answered probe closes the circuit, and the rest follow in event order.
      expect(await dispatchAt(server(), probeAt + pastRetry(2))).toBe(5)
      expect((await client.get(`/hooks/${hook.id}`)).body.paused_until).toBeNull()
      expect((await deliveries()).map((delivery) => delivery.status)).toEqual(Array(5).fill("succeeded"))
      const names = receiver.received.map((request) => JSON.parse(request.body).data.first_name)
      expect(names).toEqual(["One", "Two", "Three", "One", "One", "Two", "Three", "Four", "Five"])
      await done()
    })

    it("counts only unanswered attempts toward the circuit: error statuses are answers", async () => {
      const { client, receiver, hook, done } = await subscribed()
      receiver.script("hang", "hang", { status: 500 }, "hang", "hang", { status: 503 })
      for (let i = 0; i < 6; i++) await client.post("/contacts", { first_name: `C${i}` })
      expect(await dispatchAt(server(), Date.now())).toBe(6)
      expect((await client.get(`/hooks/${hook.id}`)).body.paused_until).toBeNull()
      await done()
    })

    it("ends the pause of a hook when one of its deliveries is redelivered", async () => {
      const { client, receiver, hook, deliveries, done } = await subscribed()
      receiver.script("hang", "hang", "hang")
      for (const name of ["One", "Two", "Three", "Four"]) await client.post("/contacts", { first_name: name })
      const now = Date.now()
      expect(await dispatchAt(server(), now)).toBe(3)
      const four = (await deliveries())[0]
      const redelivered = await client.post(`/hooks/${hook.id}/deliveries/${four.id}/redeliver`)
      expect(redelivered.status).toBe(200)
      expect((await client.get(`/hooks/${hook.id}`)).body.paused_until).toBeNull()
      expect(await dispatchAt(server(), now + SECOND)).toBe(1)
      expect(JSON.parse(receiver.received[3]!.body).data.first_name).toBe("Four")
      await done()
    })

    it("answers 409 hook_disabled to a redelivery on a disabled hook; enabling it again re-queues nothing", async () => {
      const { client, receiver, hook, deliveries, done } = await subscribed()
      receiver.script({ status: 410 })
      await client.post("/contacts", { first_name: "Gone" })
      await client.post("/contacts", { first_name: "Queued" })
      const now = Date.now()
      expect(await dispatchAt(server(), now)).toBe(1)
      const [queued, gone] = await deliveries()
      const refused = await client.post(`/hooks/${hook.id}/deliveries/${gone.id}/redeliver`)
      expect(refused.status).toBe(409)
      expect(refused.body.error).toBe("hook_disabled")
      expect(refused.body.detail.disabled_reason).toBe("the target answered 410 Gone")
      expect((await deliveries()).map((delivery) => delivery.status)).toEqual(["failed", "failed"])
      expect(await dispatchAt(server(), now + DAY)).toBe(0)

      const enabled = await client.patch(`/hooks/${hook.id}`, { enabled: true })
      expect(enabled.status).toBe(200)
      expect(enabled.body).toMatchObject({ id: hook.id, active: true, disabled_reason: null, paused_until: null })
      expect((await client.get(`/hooks/${hook.id}`)).body).toEqual(enabled.body)
      expect(await dispatchAt(server(), now + DAY)).toBe(0)
      expect((await deliveries()).map((delivery) => delivery.status)).toEqual(["failed", "failed"])

      // New events go out; the failures that disabled it count no more toward five days of failures.
      receiver.script({ status: 500 })
      await client.post("/contacts", { first_name: "After" })
      expect(await dispatchAt(server(), now + 6 * DAY)).toBe(1)
      expect((await client.get(`/hooks/${hook.id}`)).body.active).toBe(true)
      expect(await dispatchAt(server(), now + 6 * DAY + pastRetry(1))).toBe(1)
      // What failed can now be sent again on request.
      expect((await client.post(`/hooks/${hook.id}/deliveries/${queued.id}/redeliver`)).status).toBe(200)
      expect(await dispatchAt(server(), Date.now())).toBe(1)
      const names = receiver.received.map((request) => JSON.parse(request.body).data.first_name)
      expect(names).toEqual(["Gone", "After", "After", "Queued"])
      await done()
    })

    it("lets the admin act on a live key's hook by its id, as the key's own routes do", async () => {
      const { client, receiver, hook, deliveries, done } = await subscribed()
      const admin = server().admin
      receiver.script({ status: 500 })
      await client.post("/contacts", { first_name: "Retried" })
      expect(await dispatchAt(server(), Date.now())).toBe(1)

      const listed = await admin.get(`/hooks/${hook.id}/deliveries`)
      expect(listed.status).toBe(200)
      expect(listed.body).toEqual((await client.get(`/hooks/${hook.id}/deliveries`)).body)
      const [failing] = listed.body.data
      expect(failing).toMatchObject({ status: "pending", attempt_count: 1 })
      expect((await admin.get(`/hooks/${hook.id}/deliveries?limit=0`)).status).toBe(422)

      const rotated = await admin.post(`/hooks/${hook.id}/rotate-secret`)
      expect(rotated.status).toBe(200)
      expect(Object.keys(rotated.body).sort()).toEqual([...HOOK_FIELDS, "previous_secret_expires_at", "secret"].sort())
      expect(rotated.body.secret).not.toBe(hook.secret)
      const redelivered = await admin.post(`/hooks/${hook.id}/deliveries/${failing.id}/redeliver`)
      expect(redelivered.status).toBe(200)
      expect(redelivered.body).toMatchObject({ id: failing.id, status: "pending" })
      const now = Date.now()
      expect(await dispatchAt(server(), now)).toBe(1)
      expect((await deliveries())[0]).toMatchObject({ status: "succeeded", attempt_count: 2 })
      const header = receiver.received[1]!.headers["x-service-signature"] as string
      expect(signatures(header)).toHaveLength(2)
      const at = { toleranceSeconds: 300, now: Math.floor(now / 1000) }
      expect(await verifySignature(receiver.received[1]!.body, header, rotated.body.secret, at)).toBe(true)

      const unknown = crypto.randomUUID()
      for (const [method, path] of [
        ["POST", `/hooks/${unknown}/rotate-secret`],
        ["GET", `/hooks/${unknown}/deliveries`],
        ["POST", `/hooks/${unknown}/deliveries/${failing.id}/redeliver`],
        ["POST", `/hooks/${hook.id}/deliveries/${unknown}/redeliver`],
        ["DELETE", `/hooks/${unknown}`],
        ["DELETE", "/hooks/nope"]
      ] as const) {
        const answer = await admin.request(method, path)
        expect([path, answer.status, answer.body.error]).toEqual([path, 404, "not_found"])
      }

      await client.patch(`/hooks/${hook.id}`, { active: false })
      const refused = await admin.post(`/hooks/${hook.id}/deliveries/${failing.id}/redeliver`)
      expect(refused.status).toBe(409)
      expect(refused.body.error).toBe("hook_disabled")

      expect((await admin.delete(`/hooks/${hook.id}`)).status).toBe(204)
      expect((await client.get(`/hooks/${hook.id}`)).status).toBe(404)
      expect((await admin.delete(`/hooks/${hook.id}`)).status).toBe(404)

      // A revoked key's hooks are out of reach, as they are of GET /keys/{id}/hooks.
      const cut = await server().tenant()
      const itsHook = await cut.client.post("/hooks", { target_url: receiver.url, events: ["contact.created"] })
      expect((await admin.get(`/hooks/${itsHook.body.id}/deliveries`)).status).toBe(200)
      expect((await admin.delete(`/keys/${cut.keyId}`)).status).toBe(204)
      expect((await admin.get(`/hooks/${itsHook.body.id}/deliveries`)).status).toBe(404)
      expect((await admin.post(`/hooks/${itsHook.body.id}/rotate-secret`)).status).toBe(404)
      await done()
    })

    it("disables a hook on request: what it had pending fails, and new events make no deliveries", async () => {
      const { client, receiver, hook, deliveries, done } = await subscribed()
      await client.post("/contacts", { first_name: "Pending" })
      const disabled = await client.patch(`/hooks/${hook.id}`, { active: false })
      expect(disabled.status).toBe(200)
      expect(disabled.body).toMatchObject({ active: false, disabled_reason: "disabled by its owner" })
      expect(Date.parse(disabled.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(hook.updated_at))
      await client.post("/contacts", { first_name: "Unsent" })
      expect(await dispatchAt(server(), Date.now())).toBe(0)
      const listed = await deliveries()
      expect(listed.map((delivery) => [delivery.status, delivery.attempt_count])).toEqual([["failed", 0]])
      expect(receiver.received).toHaveLength(0)
      await done()
    })

    it("disables a subscription whose deliveries have all failed for five days", async () => {
      const { client, receiver, hook, done } = await subscribed()
      receiver.script(...Array.from({ length: 10 }, () => ({ status: 500 })))
      await client.post("/contacts", { first_name: "First" })
      const now = Date.now()
      await dispatchAt(server(), now)
      await client.post("/contacts", { first_name: "Second" })
      await dispatchAt(server(), now + 4 * DAY)
      expect((await client.get(`/hooks/${hook.id}`)).body.active).toBe(true)
      await client.post("/contacts", { first_name: "Third" })
      await dispatchAt(server(), now + 5 * DAY)
      const disabled = (await client.get(`/hooks/${hook.id}`)).body
      expect(disabled.active).toBe(false)
      expect(disabled.disabled_reason).toMatch(/5 days/)
      await done()
    })

    it("sends first attempts in event order, and a failing delivery does not hold back later ones", async () => {
      const { client, receiver, deliveries, done } = await subscribed()
      receiver.script({ status: 500 })
      for (const name of ["One", "Two", "Three", "Four"]) await client.post("/contacts", { first_name: name })
      const now = Date.now()
      expect(await dispatchAt(server(), now)).toBe(4)
      const sent = receiver.received.map((request) => JSON.parse(request.body).data.first_name)
      expect(sent).toEqual(["One", "Two", "Three", "Four"])
      const ids = receiver.received.map((request) => BigInt(request.headers["x-service-event-id"] as string))
      expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids)

      const listed = await deliveries()
      expect(listed.map((delivery) => delivery.status)).toEqual(["succeeded", "succeeded", "succeeded", "pending"])
      await dispatchAt(server(), now + pastRetry(1))
      expect((await deliveries()).map((delivery) => delivery.status)).toEqual(Array(4).fill("succeeded"))

      const page = await client.get(`/hooks/${listed[0].hook_id}/deliveries?limit=2&offset=1`)
      expect(page.body).toMatchObject({ limit: 2, offset: 1, has_more: true })
      expect(page.body.data.map((delivery: any) => delivery.id)).toEqual([listed[1].id, listed[2].id])
      await done()
    })

    it("stops delivering to the hooks of a revoked key", async () => {
      const { client, keyId } = await server().tenant()
      const receiver = await startReceiver()
      await client.post("/hooks", { target_url: receiver.url, events: ["contact.created"] })
      await client.post("/contacts", { first_name: "Before" })
      expect((await server().admin.delete(`/keys/${keyId}`)).status).toBe(204)
      expect(await dispatchAt(server(), Date.now())).toBe(0)
      expect(receiver.received).toHaveLength(0)
      expect((await server().admin.get(`/keys/${keyId}/hooks`)).status).toBe(404)
      await receiver.close()
    })

    it("keeps deliveries as long as the events they carry: thirty days", async () => {
      const { client, deliveries, done } = await subscribed()
      await client.post("/contacts", { first_name: "Old" })
      const purge = (ms: number) =>
        server().run(
          Effect.flatMap(Webhooks.Webhooks, (webhooks) => webhooks.purge).pipe(Effect.withClock(clockAt(ms)))
        )
      await purge(Date.now() + 29 * DAY)
      expect(await deliveries()).toHaveLength(1)
      expect(await purge(Date.now() + 31 * DAY)).toBeGreaterThanOrEqual(1)
      expect(await deliveries()).toEqual([])
      await done()
    })

    it("delivers nothing for a change that rolled back", async () => {
      const { client, receiver, deliveries, done } = await subscribed()
      await client.post("/contacts", { first_name: "Kept", email: "kept@example.com" })
      const duplicate = await client.post("/contacts", { first_name: "Refused", email: "kept@example.com" })
      expect(duplicate.status).toBe(409)
      await dispatchAt(server(), Date.now())
      expect(receiver.received.map((request) => JSON.parse(request.body).data.first_name)).toEqual(["Kept"])
      expect(await deliveries()).toHaveLength(1)
      await done()
    })
  },
  { webhooks: { worker: false, allowPrivateTargets: true, timeoutMs: 300 } }
)

describe("the delivery sender (node:http)", () => {
  const send = (request: Omit<Webhooks.OutboundRequest, "headers" | "body">) =>
    Effect.runPromise(
      Effect.flatMap(Webhooks.WebhookSender, (sender) => sender.send({ ...request, headers: {}, body: "{}" })).pipe(
        Effect.provide(WebhookSender.sender)
      )
    )
  const refusePrivate = (address: string) =>
    Option.getOrUndefined(Option.map(Webhooks.TargetRules.checkAddress(address), (refusal) => refusal.message))

  it("checks the address it connects to, after resolving the name (no DNS rebinding around the rule)", async () => {
    const receiver = await startReceiver()
    const url = receiver.url.replace("127.0.0.1", "localhost")
    const refused = await send({ url, timeoutMs: 2000, refuseAddress: refusePrivate })
    expect(refused).toMatchObject({ _tag: "Failure", error: expect.stringContaining("address refused") })
    expect(receiver.received).toHaveLength(0)
    expect(await send({ url, timeoutMs: 2000, refuseAddress: () => undefined })).toMatchObject({
      _tag: "Response",
      status: 200
    })
    await receiver.close()
  })

  it("does not follow redirects", async () => {
    const receiver = await startReceiver()
    receiver.script({ status: 302, headers: { location: receiver.url } })
    const answer = await send({ url: receiver.url, timeoutMs: 2000, refuseAddress: () => undefined })
    expect(answer).toMatchObject({ _tag: "Response", status: 302 })
    expect(receiver.received).toHaveLength(1)
    await receiver.close()
  })
})

describe("the webhook worker", () => {
  let server: TestServer | undefined
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer, {
      webhooks: { pollIntervalMs: 20, allowPrivateTargets: true, timeoutMs: 1000 }
    })
  })
  afterAll(() => server?.close())

  it("delivers in the background, every poll interval", async () => {
    const { client } = await server!.tenant()
    const receiver = await startReceiver()
    const hook = await client.post("/hooks", { target_url: receiver.url, events: ["contact.created"] })
    await client.post("/contacts", { first_name: "Background" })
    await receiver.arrived(1)
    expect(JSON.parse(receiver.received[0]!.body).data.first_name).toBe("Background")
    await client.delete(`/hooks/${hook.body.id}`)
    await receiver.close()
  })
})

describe("hook delivery isolation", () => {
  const servers = new Map<string, TestServer>()
  beforeAll(async () => {
    for (const storage of storages) servers.set(storage.name, await startServer(storage.fresh(), ISOLATION_OPTIONS))
  })
  afterAll(async () => {
    for (const server of servers.values()) await server.close()
  })
  // The stores' runs overlap: each spends its 6-7 s waiting on its targets' timeouts and the retry
  // step, not on the processor.
  for (const storage of storages) {
    it.concurrent(`delivers each hook's events independently of slow, hanging, resetting and failing targets [${storage.name}]`, () =>
      deliveryIsolation([servers.get(storage.name)!]))
  }
})

describe("the webhook worker's bound", () => {
  let server: TestServer | undefined
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer, {
      webhooks: { pollIntervalMs: 20, concurrency: 2, allowPrivateTargets: true, timeoutMs: 10_000 }
    })
  })
  afterAll(() => server?.close())

  it("works at most `concurrency` hooks at once, and takes up another as soon as one is done", async () => {
    const { client } = await server!.tenant()
    const opens: Array<() => void> = []
    const gates = Array.from({ length: 3 }, () => new Promise<void>((resolve) => opens.push(resolve)))
    const receivers = await Promise.all(gates.map((gate) => startReceiver(() => ({ status: 200, after: gate }))))
    for (const receiver of receivers) {
      expect((await client.post("/hooks", { target_url: receiver.url, events: ["contact.created"] })).status).toBe(201)
    }
    await client.post("/contacts", { first_name: "Bounded" })
    const waiting = () => receivers.filter((receiver) => receiver.received.length === 0)
    await vi.waitFor(() => expect(waiting()).toHaveLength(1))
    // Many polls go by while both slots are held: none of them takes up the third hook.
    await sleep(400)
    expect(waiting()).toHaveLength(1)
    const busy = receivers.indexOf(receivers.find((receiver) => receiver.received.length === 1)!)
    opens[busy]!()
    await waiting()[0]!.arrived(1)
    for (const open of opens) open()
    for (const receiver of receivers) await receiver.close()
  })
})
