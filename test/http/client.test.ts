/**
 * `@crm/client` against the real server (memory store): typed results, `CrmError`s with the
 * request id, the default `Idempotency-Key`, the retries of 429 and 409 `idempotency_in_progress`,
 * and the admin API. A retry is checked with a fetch that puts one made-up answer in front of the
 * real server, since the server's own Retry-After (up to a minute for 429, a race for 409) is not
 * something a test can wait for or cause at will; its wait by the order of events, not a clock.
 */
import { type ApiClient, CrmError, createAdminClient, createClient, type Schemas } from "@crm/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkedFetch } from "../support/responseCheck.js"
import { ADMIN_TOKEN, startServer, type TestServer } from "../support/server.js"
import { memory } from "../support/storages.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let server: TestServer
beforeAll(async () => {
  server = await startServer(memory.fresh())
})
afterAll(() => server.close())

interface Sent {
  readonly method: string
  readonly path: string
  readonly idempotencyKey: string | null
  readonly requestId: string | null
}

/**
 * checkedFetch, recording each request; `answers` go first, one per request, in place of the server.
 * Each request also logs "sent" in `log`, beside what the answers log there.
 */
const recording = (answers: Array<() => Response> = [], log: Array<string> = []) => {
  const sent: Array<Sent> = []
  const fetch = async (request: Request): Promise<Response> => {
    log.push("sent")
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      idempotencyKey: request.headers.get("idempotency-key"),
      requestId: request.headers.get("x-request-id")
    })
    const answer = answers.shift()
    return answer === undefined ? checkedFetch(request) : answer()
  }
  return { sent, fetch }
}

const errorAnswer =
  (status: number, error: string, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify({ error, detail: "made up by the test", request_id: "made-up" }), {
      status,
      headers: { "content-type": "application/json", "x-request-id": "made-up", ...headers }
    })

/**
 * `errorAnswer` with `Retry-After: seconds`, which starts a timer of as many seconds as it is given
 * and logs "waited" in `log` when it fires. A client waiting out the Retry-After sets its own timer
 * of that length after this one, and timers of one length fire in the order they were set: its
 * retry is logged after "waited", one sent any sooner before it.
 */
const retryAfterAnswer = (status: number, error: string, seconds: number, log: Array<string>) => () => {
  setTimeout(() => log.push("waited"), seconds * 1000)
  return errorAnswer(status, error, { "retry-after": String(seconds) })()
}

const tenantClient = async (options: { fetch?: (request: Request) => Promise<Response> } = {}) => {
  const { key } = await server.tenant()
  return { key, crm: createClient({ baseUrl: server.url, apiKey: key, fetch: checkedFetch, ...options }) }
}

describe("@crm/client against the server", () => {
  it("creates, gets and lists a contact, typed by the OpenAPI document", async () => {
    const { crm } = await tenantClient()
    const created = await crm.POST("/contacts", { body: { first_name: "Ada", email: "ada@example.com" } })
    if (created.error) throw created.error
    expect(created.response.status).toBe(201)
    const contact: Schemas["Contact"] = created.data
    expect(contact).toMatchObject({ first_name: "Ada", email: "ada@example.com", status: "lead" })
    expect(contact.id).toMatch(UUID)
    // @ts-expect-error: a contact has no such field
    expect(created.data.nickname).toBeUndefined()

    const got = await crm.GET("/contacts/{id}", { params: { path: { id: contact.id } } })
    expect(got.data).toEqual(contact)

    const page = await crm.GET("/contacts", { params: { query: { email: "ada@example.com", limit: 10 } } })
    if (page.error) throw page.error
    const listed: Schemas["ContactPage"] = page.data
    expect(listed.data.map((c) => c.id)).toEqual([contact.id])
    expect(listed).toMatchObject({ limit: 10, offset: 0, has_more: false })

    const archived = await crm.DELETE("/contacts/{id}", { params: { path: { id: contact.id } } })
    expect(archived.error).toBeUndefined()
    expect(archived.response?.status).toBe(204)
  })

  it("answers a 422 as a CrmError validation_failed, with the issues and the response's request id", async () => {
    const { crm } = await tenantClient()
    // @ts-expect-error: the types already refuse this status; the server is asked anyway
    const answer = await crm.POST("/contacts", { body: { first_name: "A", status: "vip" } })
    const { error, response } = answer
    expect(error).toBeInstanceOf(CrmError)
    if (error === undefined) throw new Error("expected an error")
    expect(error.status).toBe(422)
    expect(error.code).toBe("validation_failed")
    expect(error.requestId).toBe(response?.headers.get("x-request-id"))
    expect(error.requestId).toMatch(UUID)
    const issues = error.detail as Array<Schemas["ValidationIssue"]>
    expect(issues.map((issue) => issue.path)).toContain("status")
    // The code is typed by the operation's documented codes (and the client's own).
    // @ts-expect-error: not a code POST /contacts can answer
    expect(error.code === "not_payable").toBe(false)
    expect(error.message).toContain("validation_failed")
  })

  it("answers 404, 409 and 401 as CrmErrors with their codes, without retrying them", async () => {
    const { sent, fetch } = recording()
    const { crm } = await tenantClient({ fetch })
    const missing = await crm.GET("/contacts/{id}", { params: { path: { id: crypto.randomUUID() } } })
    expect([missing.error?.status, missing.error?.code]).toEqual([404, "not_found"])
    await crm.POST("/contacts", { body: { email: "taken@example.com" } })
    const taken = await crm.POST("/contacts", { body: { email: "taken@example.com" } })
    expect([taken.error?.status, taken.error?.code]).toEqual([409, "email_already_exists"])
    expect(sent).toHaveLength(3)

    const stranger = createClient({ baseUrl: server.url, apiKey: "mck_nope", fetch: checkedFetch })
    const refused = await stranger.GET("/me")
    expect([refused.error?.status, refused.error?.code]).toEqual([401, "invalid_api_key"])
  })

  it("sends a new Idempotency-Key with every write by default, and none with a read", async () => {
    const { sent, fetch } = recording()
    const { crm } = await tenantClient({ fetch })
    const first = await crm.POST("/contacts", { body: { first_name: "One" } })
    const second = await crm.POST("/contacts", { body: { first_name: "One" } })
    expect(first.data?.id).not.toBe(second.data?.id)
    await crm.GET("/contacts")
    const [a, b, read] = sent
    expect(a!.idempotencyKey).toMatch(UUID)
    expect(b!.idempotencyKey).toMatch(UUID)
    expect(a!.idempotencyKey).not.toBe(b!.idempotencyKey)
    expect(read!.idempotencyKey).toBeNull()
    for (const request of sent) expect(request.requestId).toMatch(UUID)
  })

  it("replays a write sent twice with the same explicit key, and sends none when told not to", async () => {
    const { sent, fetch } = recording()
    const { crm } = await tenantClient({ fetch })
    const first = await crm.POST("/contacts", { body: { first_name: "Once" }, idempotencyKey: "order-42" })
    const again = await crm.POST("/contacts", { body: { first_name: "Once" }, idempotencyKey: "order-42" })
    expect(again.data?.id).toBe(first.data?.id)
    expect(first.response?.headers.get("idempotency-replayed")).toBeNull()
    expect(again.response?.headers.get("idempotency-replayed")).toBe("true")
    // The header as a typed parameter of the operation works too, and wins.
    const byHeader = await crm.POST("/contacts", {
      params: { header: { "Idempotency-Key": "order-42" } },
      body: { first_name: "Once" }
    })
    expect(byHeader.data?.id).toBe(first.data?.id)
    await crm.POST("/contacts", { body: { first_name: "Unkeyed" }, idempotencyKey: false })
    expect(sent.map((request) => request.idempotencyKey)).toEqual(["order-42", "order-42", "order-42", null])
    const page = await crm.GET("/contacts")
    expect(page.data?.data.map((c) => c.first_name).sort()).toEqual(["Once", "Unkeyed"])
  })

  it("does not wait out a 429 whose Retry-After is longer than maxWaitSeconds: the error carries it", async () => {
    const { key } = await server.tenant()
    const spender = server.as(key)
    for (let i = 0; i < 120; i++) expect((await spender.get("/contacts?limit=1")).status).toBe(200)
    const { sent, fetch } = recording()
    const crm = createClient({ baseUrl: server.url, apiKey: key, fetch, retries: { maxWaitSeconds: 2 } })
    const limited = await crm.GET("/contacts")
    expect(limited.error?.status).toBe(429)
    expect(limited.error?.code).toBe("rate_limited")
    expect(limited.error?.retryAfter).toBeGreaterThan(2)
    expect(limited.error?.requestId).toBe(sent[0]!.requestId)
    expect(sent).toHaveLength(1)
  })

  it("retries a 429 after Retry-After seconds, with the same Idempotency-Key and a new request id", async () => {
    const log: Array<string> = []
    const { sent, fetch } = recording([retryAfterAnswer(429, "rate_limited", 1, log)], log)
    const { crm } = await tenantClient({ fetch })
    const created = await crm.POST("/contacts", { body: { first_name: "Patient" } })
    expect(log).toEqual(["sent", "waited", "sent"])
    expect(created.error).toBeUndefined()
    expect(created.data?.first_name).toBe("Patient")
    expect(sent).toHaveLength(2)
    expect(sent[1]!.idempotencyKey).toBe(sent[0]!.idempotencyKey)
    expect(sent[1]!.requestId).not.toBe(sent[0]!.requestId)
  })

  it("retries 409 idempotency_in_progress after Retry-After, and gives up after maxAttempts", async () => {
    const log: Array<string> = []
    const { sent, fetch } = recording([retryAfterAnswer(409, "idempotency_in_progress", 1, log)], log)
    const { key } = await server.tenant()
    const crm = createClient({ baseUrl: server.url, apiKey: key, fetch })
    const created = await crm.POST("/contacts", { body: { first_name: "Later" } })
    expect(log).toEqual(["sent", "waited", "sent"])
    expect(created.data?.first_name).toBe("Later")
    expect(sent.map((request) => request.idempotencyKey)).toEqual([sent[0]!.idempotencyKey, sent[0]!.idempotencyKey])

    const busy = recording([0, 1, 2, 3].map(() => errorAnswer(409, "idempotency_in_progress", { "retry-after": "0" })))
    const stubborn = createClient({ baseUrl: server.url, apiKey: key, fetch: busy.fetch, retries: { maxAttempts: 3 } })
    const gaveUp = await stubborn.POST("/contacts", { body: { first_name: "Never" } })
    expect(gaveUp.error?.code).toBe("idempotency_in_progress")
    expect(gaveUp.error?.requestId).toBe("made-up")
    expect(busy.sent).toHaveLength(3)

    const none = recording([errorAnswer(429, "rate_limited", { "retry-after": "0" })])
    const once = createClient({ baseUrl: server.url, apiKey: key, fetch: none.fetch, retries: false })
    expect((await once.GET("/contacts")).error?.code).toBe("rate_limited")
    expect(none.sent).toHaveLength(1)
  })

  it("answers the 429 it was waiting out when the call is aborted meanwhile", async () => {
    const aborting = new AbortController()
    const log: Array<string> = []
    const limited = retryAfterAnswer(429, "rate_limited", 5, log)
    const { sent, fetch } = recording([
      () => {
        aborting.abort()
        return limited()
      }
    ])
    const { crm } = await tenantClient({ fetch })
    const answer = await crm.GET("/contacts", { signal: aborting.signal })
    // Answered before the 5 s were out, without a retry.
    expect(log).toEqual([])
    expect(answer.error).toMatchObject({ status: 429, code: "rate_limited", retryAfter: 5 })
    expect(sent).toHaveLength(1)
  })

  // On memory (and PGlite) a duplicate waits for the first rather than getting 409: this checks the
  // outcome, one contact; the 409 retry itself is the made-up answer's test above.
  it("turns concurrent writes with one key into one contact, each call answered with it", async () => {
    const { crm } = await tenantClient()
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => crm.POST("/contacts", { body: { first_name: "Race" }, idempotencyKey: "race" }))
    )
    const ids = answers.map((answer) => {
      if (answer.error) throw answer.error
      return answer.data.id
    })
    expect(new Set(ids).size).toBe(1)
    expect((await crm.GET("/contacts")).data?.data).toHaveLength(1)
  })

  it("answers a call that gets no response as network_error, with the request id it sent", async () => {
    const { sent, fetch } = recording()
    const crm = createClient({
      baseUrl: "http://127.0.0.1:9",
      apiKey: "mck_x",
      fetch: (request) => fetch(request).then(() => Promise.reject(new TypeError("fetch failed")))
    })
    const answer = await crm.GET("/me")
    expect(answer.response).toBeUndefined()
    expect(answer.error).toBeInstanceOf(CrmError)
    expect(answer.error).toMatchObject({ status: 0, code: "network_error", requestId: sent[0]!.requestId })
    expect(answer.error?.cause).toBeInstanceOf(TypeError)
  })

  it("calls the admin API: creates an organisation and a key that the REST client then uses", async () => {
    const { sent, fetch } = recording()
    const admin = createAdminClient({ baseUrl: server.url, adminToken: ADMIN_TOKEN, fetch })
    const organisation = await admin.POST("/organisations", { body: { name: "Client Org" } })
    if (organisation.error) throw organisation.error
    const org: Schemas["Organisation"] = organisation.data
    expect(org.name).toBe("Client Org")
    const key = await admin.POST("/organisations/{id}/keys", {
      params: { path: { id: org.id } },
      body: { name: "integration", scopes: ["read", "write"] }
    })
    if (key.error) throw key.error
    expect(key.data.key).toMatch(/^mck_/)
    expect(sent.map((request) => [request.path, request.idempotencyKey])).toEqual([
      ["/admin/v1/organisations", null],
      [`/admin/v1/organisations/${org.id}/keys`, null]
    ])

    const crm: ApiClient = createClient({ baseUrl: `${server.url}/`, apiKey: key.data.key, fetch: checkedFetch })
    const me = await crm.GET("/me")
    expect(me.data?.organisation).toMatchObject({ id: org.id })

    const wrong = createAdminClient({ baseUrl: server.url, adminToken: "nope", fetch: checkedFetch })
    const refused = await wrong.GET("/organisations/{id}", { params: { path: { id: org.id } } })
    expect([refused.error?.status, refused.error?.code]).toEqual([401, "invalid_api_key"])
  })
})
