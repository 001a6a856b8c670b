import { expect, it } from "vitest"
import { onEveryStore } from "../support/suite.js"

onEveryStore("request mechanics", (server) => {
  it("gives every response a request id, echoing a sane one, also inside error bodies", async () => {
    const { client } = await server().tenant()
    const echoed = await client.get("/contacts", { "x-request-id": "abc-123" })
    expect(echoed.headers.get("x-request-id")).toBe("abc-123")
    const generated = await client.get("/contacts/not-a-uuid", { "x-request-id": "bad id with spaces" })
    const id = generated.headers.get("x-request-id")
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(generated.body).toEqual({ error: "not_found", detail: expect.anything(), request_id: id })
    expect((await server().anonymous.get("/openapi.json")).headers.get("x-request-id")).toBeTruthy()
  })

  it("frames every body with its Content-Length, not chunked; a 204 with none", async () => {
    const { client } = await server().tenant()
    const created = await client.post("/contacts", { first_name: "Ann", email: "framed@example.com" })
    const answers = [
      created,
      await client.get(`/contacts/${created.body.id}`),
      await client.get("/contacts"),
      await client.get("/nowhere"),
      await server().anonymous.get("/openapi.json")
    ]
    for (const answer of answers) {
      expect(answer.headers.get("transfer-encoding")).toBeNull()
      expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(answer.text)))
    }
    const archived = await client.delete(`/contacts/${created.body.id}`)
    expect(archived.status).toBe(204)
    expect(archived.headers.get("content-length")).toBeNull()
    expect(archived.headers.get("transfer-encoding")).toBeNull()
  })

  it("answers malformed JSON, wrong content types, huge bodies and unknown routes with clear 4xx", async () => {
    const { client } = await server().tenant()
    const badJson = await client.request("POST", "/contacts", {
      raw: '{"first_name": ',
      headers: { "content-type": "application/json" }
    })
    expect(badJson.status).toBe(400)
    expect(badJson.body.error).toBe("invalid_json")
    const wrongType = await client.request("POST", "/contacts", {
      raw: "first_name=A",
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(wrongType.status).toBe(415)
    expect(wrongType.body.error).toBe("unsupported_media_type")
    const huge = await client.post("/contacts", { first_name: "A", custom: { blob: "x".repeat(1024 * 1024) } })
    expect(huge.status).toBe(413)
    expect(huge.body.error).toBe("payload_too_large")
    const array = await client.post("/contacts", [1, 2])
    expect(array.status).toBe(422)
    expect((await client.get("/nowhere")).status).toBe(404)
    const method = await client.request("PUT", "/contacts")
    expect(method.status).toBe(405)
    expect(method.headers.get("allow")).toContain("GET")
    expect((await client.get("/contacts")).body.data).toEqual([])
  })

  it("reports the rate budget on every response; /me spends none; the 121st request in a minute is 429", async () => {
    const { client } = await server().tenant()
    const first = await client.get("/contacts")
    expect(first.headers.get("x-ratelimit-limit")).toBe("120")
    expect(first.headers.get("x-ratelimit-remaining")).toBe("119")
    const me = await client.get("/me")
    expect(me.body.rate_limit).toEqual({ limit: 120, remaining: 119 })
    expect((await client.get("/me")).body.rate_limit.remaining).toBe(119)
    await Promise.all(Array.from({ length: 119 }, () => client.get("/contacts")))
    const limited = await client.get("/contacts")
    expect(limited.status).toBe(429)
    expect(limited.body.error).toBe("rate_limited")
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60)
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0")
    expect((await client.get("/me")).status).toBe(200)
    const other = await server().tenant()
    expect((await other.client.get("/contacts")).status).toBe(200)
  })

  it("describes the caller on /me", async () => {
    const { client, keyId, organisation } = await server().tenant({ scopes: ["read"] })
    const me = await client.get("/me")
    expect(me.body).toEqual({
      key: { id: keyId, name: "test", scopes: ["read"], expires_at: null, test_mode: false },
      organisation: { id: organisation.id, name: organisation.name, timezone: "UTC" },
      rate_limit: { limit: 120, remaining: 120 }
    })
  })
})

onEveryStore("idempotency", (server) => {
  it("replays the first response and creates nothing the second time", async () => {
    const { client } = await server().tenant()
    const headers = { "idempotency-key": "create-ada-1" }
    const first = await client.post("/contacts", { first_name: "Ada" }, headers)
    const again = await client.post("/contacts", { first_name: "Ada" }, headers)
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.text).toBe(first.text)
    expect(again.headers.get("idempotency-replayed")).toBe("true")
    expect(first.headers.get("idempotency-replayed")).toBeNull()
    expect((await client.get("/contacts")).body.data).toHaveLength(1)
    const events = await client.get("/events?event=contact.created")
    expect(events.body.data).toHaveLength(1)
  })

  it("replays domain errors too, and refuses the key with another body, path or method", async () => {
    const { client } = await server().tenant()
    await client.post("/contacts", { email: "taken@example.com" })
    const headers = { "idempotency-key": '"dup-1"' }
    const conflict = await client.post("/contacts", { email: "taken@example.com" }, headers)
    expect(conflict.status).toBe(409)
    const replay = await client.post("/contacts", { email: "taken@example.com" }, headers)
    expect(replay.status).toBe(409)
    expect(replay.headers.get("idempotency-replayed")).toBe("true")
    const otherBody = await client.post("/contacts", { email: "free@example.com" }, headers)
    expect(otherBody.status).toBe(422)
    expect(otherBody.body.error).toBe("idempotency_key_reused")
    const otherPath = await client.post("/companies", { name: "X" }, headers)
    expect(otherPath.body.error).toBe("idempotency_key_reused")
    expect((await client.get("/contacts?email=free@example.com")).body.data).toHaveLength(0)
  })

  it("scopes keys to the API key and validates the header", async () => {
    const a = await server().tenant()
    const b = await server().tenant()
    const headers = { "idempotency-key": "shared" }
    expect((await a.client.post("/contacts", { first_name: "A" }, headers)).status).toBe(201)
    const other = await b.client.post("/contacts", { first_name: "A" }, headers)
    expect(other.headers.get("idempotency-replayed")).toBeNull()
    expect((await b.client.get("/contacts")).body.data).toHaveLength(1)
    const tooLong = await a.client.post("/contacts", { first_name: "A" }, { "idempotency-key": "x".repeat(256) })
    expect(tooLong.status).toBe(422)
    expect(tooLong.body.error).toBe("validation_failed")
  })

  it("answers 409 idempotency_in_progress to a duplicate that arrives while the first runs", async () => {
    const { client } = await server().tenant()
    const headers = { "idempotency-key": "race" }
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => client.post("/contacts", { first_name: "Race" }, headers))
    )
    const statuses = responses.map((r) => r.status)
    // Whichever finish after the first see its stored answer; those that overlap it are told to retry.
    for (const response of responses) {
      if (response.status === 409) {
        expect(response.body.error).toBe("idempotency_in_progress")
        expect(response.headers.get("retry-after")).toBe("1")
      } else {
        expect(response.status).toBe(201)
      }
    }
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1)
    expect((await client.get("/contacts")).body.data).toHaveLength(1)
  })
})
