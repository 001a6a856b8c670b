/**
 * The server's log as an operator reads it: one line per request with what identifies it (never
 * the key, the admin token or a body), the server's own events through the same logger, the level
 * and the format chosen as CRM_LOG_LEVEL and CRM_LOG_FORMAT choose them.
 */
import type { Log } from "@crm/server"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { collector } from "../support/log.js"
import { shipTo } from "../support/orders.js"
import { startReceiver } from "../support/receiver.js"
import { ADMIN_TOKEN, type ServerTestOptions, startServer, type TestServer } from "../support/server.js"
import { memory } from "../support/storages.js"

const started = async (settings: Omit<Log.LogSettings, "output">, options: ServerTestOptions = {}) => {
  const log = collector()
  const server = await startServer(memory.fresh(), { ...options, log: { ...settings, output: log.output } })
  return { server, log }
}

const REQUEST_FIELDS = [
  "time",
  "level",
  "msg",
  "request_id",
  "method",
  "route",
  "status",
  "duration_ms",
  "organisation_id",
  "key_id"
]

describe("the request log [memory]", () => {
  let server: TestServer
  let log: ReturnType<typeof collector>
  const parsed = () => log.lines().map((line) => JSON.parse(line))
  const requestLines = (requestId: string) =>
    parsed().filter((line) => line.msg === "request" && line.request_id === requestId)
  /** Lines are gathered for up to `Log.GATHER_MS` before they are written: the request's line follows its answer closely. */
  const lineOf = async (requestId: string) => {
    await vi.waitFor(() => expect(requestLines(requestId)).toHaveLength(1))
    return requestLines(requestId)[0]
  }

  beforeAll(async () => {
    ;({ server, log } = await started({ level: "info", format: "json" }))
  })
  afterAll(() => server.close())

  it("writes one JSON line per request: id, method, route template, status, duration, organisation and key", async () => {
    const { organisation, key, keyId, client } = await server.tenant()
    const created = await client.post("/contacts", { first_name: "Secret-Body-Marker" }, { "x-request-id": "create-1" })
    expect(created.status).toBe(201)
    const read = await client.get(`/contacts/${created.body.id}`, { "x-request-id": "read-1" })
    expect(read.status).toBe(200)

    const line = await lineOf("read-1")
    expect(Object.keys(line)).toEqual(REQUEST_FIELDS)
    expect(line).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: "info",
      msg: "request",
      request_id: "read-1",
      method: "GET",
      route: "/api/v1/contacts/{id}",
      status: 200,
      duration_ms: expect.any(Number),
      organisation_id: organisation.id,
      key_id: keyId
    })
    expect(line.duration_ms).toBeGreaterThan(0)
    expect(await lineOf("create-1")).toMatchObject({ method: "POST", route: "/api/v1/contacts", status: 201 })

    // Secrets and bodies stay out of the log, whoever sent them.
    await server.admin.get("/organisations", { "x-request-id": "admin-1" })
    expect(await lineOf("admin-1")).toMatchObject({ route: "/admin/v1/organisations", key_id: null })
    const everything = log.text()
    expect(everything).not.toContain(key)
    expect(everything).not.toContain(ADMIN_TOKEN)
    expect(everything).not.toContain("Secret-Body-Marker")
  })

  it("logs refused and unmatched requests too: no key is null, no route is null", async () => {
    const refused = await server.anonymous.get("/contacts", { "x-request-id": "anonymous-1" })
    expect(refused.status).toBe(401)
    expect(await lineOf("anonymous-1")).toMatchObject({
      route: "/api/v1/contacts",
      status: 401,
      organisation_id: null,
      key_id: null
    })
    const unknown = await server.anonymous.get("/no-such-thing", { "x-request-id": "unknown-1" })
    expect(unknown.status).toBe(404)
    expect(await lineOf("unknown-1")).toMatchObject({ route: null, status: 404 })
  })

  it("carries the server's own events in the same format", async () => {
    const listening = parsed().find((line) => String(line.msg).startsWith("Listening on"))
    expect(listening).toMatchObject({ level: "info", msg: `Listening on ${server.url}` })
  })
})

describe("the log's level and format [memory]", () => {
  it("at warn, writes no request lines", async () => {
    const { server, log } = await started({ level: "warn", format: "json" })
    try {
      const { client } = await server.tenant()
      expect((await client.get("/me", { "x-request-id": "quiet-1" })).status).toBe(200)
    } finally {
      // What was gathered is written when the server closes: nothing can still be on its way.
      await server.close()
    }
    expect(log.text()).not.toContain("quiet-1")
    expect(log.text()).not.toContain("Listening on")
  })

  it("pretty: one readable line per request, the fields as key=value", async () => {
    const { server, log } = await started({ level: "info", format: "pretty" })
    let tenant: Awaited<ReturnType<TestServer["tenant"]>>
    try {
      tenant = await server.tenant()
      expect((await tenant.client.get("/me", { "x-request-id": "pretty-1" })).status).toBe(200)
    } finally {
      await server.close()
    }
    const lines = log.lines().filter((line) => line.includes("request_id=pretty-1"))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  request request_id=pretty-1 method=GET route=/api/v1/me status=200 duration_ms=[\\d.]+ organisation_id=${tenant.organisation.id} key_id=${tenant.keyId}$`
      )
    )
  })
})

describe("the workers' events [memory]", () => {
  it("logs each webhook delivery and each mail through the same logger, without their bodies", async () => {
    const receiver = await startReceiver()
    const { server, log } = await started(
      { level: "info", format: "json" },
      { webhooks: { pollIntervalMs: 20, allowPrivateTargets: true }, mail: { every: "20 millis" } }
    )
    const lines = () => log.lines().map((line) => JSON.parse(line))
    try {
      const { organisation, client } = await server.tenant()
      const hook = await client.post("/hooks", { target_url: receiver.url, events: ["contact.created"] })
      expect(hook.status, hook.text).toBe(201)
      expect((await client.post("/contacts", { first_name: "Webhook-Body-Marker" })).status).toBe(201)
      await vi.waitFor(() =>
        expect(lines().find((line) => line.msg === "webhook delivered")).toMatchObject({
          level: "info",
          organisation_id: organisation.id,
          hook_id: hook.body.id,
          attempt: 1,
          status: "succeeded",
          status_code: 200
        })
      )

      await shipTo(client, "mail-recipient-marker@example.com")
      await vi.waitFor(() =>
        expect(lines().find((line) => line.msg === "mail sent")).toMatchObject({
          level: "info",
          organisation_id: organisation.id,
          mail_id: expect.any(String),
          attempt: 1,
          status: "sent"
        })
      )
      expect(log.text()).not.toContain("Webhook-Body-Marker")
      expect(log.text()).not.toContain("mail-recipient-marker")
    } finally {
      await server.close()
      await receiver.close()
    }
  })
})
