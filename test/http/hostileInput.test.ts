/**
 * Input as an attacker or a careless client sends it: nesting deep enough to make any walker of the
 * value slow or overflow its stack, text PostgreSQL cannot hold in a natural key of the path, and
 * addresses with white space around them. Each answers a documented 4xx (or, for the addresses,
 * what the README promises) on every store, and writes nothing it refuses.
 */
import { Validation } from "@crm/core"
import { expect, it } from "vitest"
import { onEveryStore } from "../support/suite.js"

const deepArray = (depth: number): string => `${"[".repeat(depth)}${"]".repeat(depth)}`
const asJson = { "content-type": "application/json" }
/** The path of the first container past the limit, where the body's `field` holds nested arrays. */
const refusedPath = (field: string) => [field, ...Array(Validation.MAX_DEPTH - 1).fill("0")].join(".")

onEveryStore("hostile input", (server) => {
  const tooDeep = (path: string) => ({
    error: "validation_failed",
    detail: [{ path, message: expect.any(String), code: "too_deep" }],
    request_id: expect.any(String)
  })

  it("refuses a body nested 50,000 deep at once with 422 naming where, while another client is served", async () => {
    const { client } = await server().tenant()
    const refused = client.request("POST", "/contacts", {
      raw: `{"first_name":"D","custom":${deepArray(50_000)}}`,
      headers: asJson
    })
    // Asked while the deep body is in flight: a stalled process would answer it only after the other.
    const health = fetch(`${server().url}/healthz`)
    const [answer, healthy] = await Promise.all([refused, health])
    expect(healthy.status).toBe(200)
    expect(answer.status).toBe(422)
    expect(answer.body).toEqual(tooDeep(refusedPath("custom")))
    expect((await client.get("/contacts")).body.data).toEqual([])
  })

  it("refuses the largest nesting a body may carry (1 MiB of brackets), and deep objects inside custom", async () => {
    const { client } = await server().tenant()
    const megabyte = deepArray(500_000)
    expect(
      (await client.request("POST", "/contacts", { raw: `{"custom":{"a":${megabyte}}}`, headers: asJson })).status
    ).toBe(422)
    const objects = `{"first_name":"D","custom":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}`
    const answer = await client.request("POST", "/contacts", { raw: objects, headers: asJson })
    expect(answer.status).toBe(422)
    expect(answer.body.detail[0]).toMatchObject({
      code: "too_deep",
      path: ["custom", ...Array(Validation.MAX_DEPTH - 1).fill("a")].join(".")
    })
  })

  it("refuses 60,000 distinct keys or 100,000 elements before parsing them, whose shapes alone would cost a second", async () => {
    const { client } = await server().tenant()
    const keys = `{"first_name":"D","custom":{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":0`).join(",")}}}`
    const answer = await client.request("POST", "/contacts", { raw: keys, headers: asJson })
    expect(answer.status).toBe(422)
    expect(answer.body.detail).toEqual([
      { path: expect.stringMatching(/^custom\.k\d+$/), message: expect.any(String), code: "too_many_members" }
    ])
    const elements = `{"first_name":"D","custom":{"a":[${Array(100_000).fill(0).join(",")}]}}`
    const refused = await client.request("POST", "/contacts", { raw: elements, headers: asJson })
    expect(refused.body.detail).toEqual([
      { path: expect.stringMatching(/^custom\.a\.\d+$/), message: expect.any(String), code: "too_many_members" }
    ])
    expect((await client.get("/contacts")).body.data).toEqual([])
  })

  it("stores custom values nested up to the limit and reads them back whole", async () => {
    const { client } = await server().tenant()
    // The body is level 1 and `custom` level 2: its value may nest MAX_DEPTH - 2 more.
    let value: unknown = "leaf"
    for (let level = 0; level < Validation.MAX_DEPTH - 2; level++) value = level % 2 === 0 ? [value] : { n: value }
    const created = await client.post("/contacts", { first_name: "Deep", custom: { a: value } })
    expect(created.status).toBe(201)
    expect((await client.get(`/contacts/${created.body.id}`)).body.custom).toEqual({ a: value })
    const deeper = await client.post("/contacts", { first_name: "Deeper", custom: { a: [value] } })
    expect(deeper.status).toBe(422)
  })

  it("refuses deep bodies on the admin API and in an import line too", async () => {
    const nestedName = `{"name":${deepArray(50_000)}}`
    const admin = await server().admin.request("POST", "/organisations", { raw: nestedName, headers: asJson })
    expect(admin.status).toBe(422)
    expect(admin.body).toEqual(tooDeep(refusedPath("name")))
    const { organisation, client } = await server().tenant()
    const line = `{"type":"contact","first_name":"A","custom":{"x":${deepArray(1_000)}}}`
    const imported = await server().admin.request("POST", `/organisations/${organisation.id}/import`, {
      raw: `{"type":"contact","first_name":"Kept?"}\n${line}\n`,
      headers: { "content-type": "application/x-ndjson" }
    })
    expect(imported.status).toBe(422)
    expect(imported.body.detail).toMatchObject({ line: 2, error: "validation_failed", detail: [{ code: "too_deep" }] })
    expect((await client.get("/contacts")).body.data).toEqual([])
  })

  it("refuses a deep JSON-RPC body on the assistant interface with the same detail", async () => {
    const { key } = await server().tenant()
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_contact","arguments":{"first_name":"D","custom":${deepArray(50_000)}}}}`
    const answer = await fetch(`${server().url}/api/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream"
      },
      body
    })
    expect(answer.status).toBe(422)
    const json = (await answer.json()) as any
    expect(json.error.data).toEqual({
      error: "validation_failed",
      detail: [
        {
          path: expect.stringMatching(/^params\.arguments\.custom\.0\.0/),
          message: expect.any(String),
          code: "too_deep"
        }
      ]
    })
  })

  it.each([
    ["/products/by-sku/%00", { name: "P" }, "sku"],
    ["/companies/by-domain/%00", { name: "C" }, "domain"],
    ["/contacts/by-email/a%00%40b.test", {}, "email"]
  ])("refuses a NUL in the natural key of PUT %s with 422 naming the key", async (path, body, key) => {
    const { client } = await server().tenant()
    const answer = await client.put(path, body)
    expect(answer.status).toBe(422)
    expect(answer.body.detail).toEqual([{ path: key, message: expect.any(String), code: "invalid_characters" }])
  })

  it("takes addresses with white space around them, trimmed, wherever an email is accepted", async () => {
    const { client } = await server().tenant()
    const created = await client.post("/contacts", { first_name: "Ada", email: "  Ada@Example.test \t" })
    expect(created.status).toBe(201)
    expect(created.body.email).toBe("ada@example.test")
    const upserted = await client.put(`/contacts/by-email/${encodeURIComponent("  ada@example.test  ")}`, {
      status: "customer"
    })
    expect(upserted.status).toBe(200)
    expect(upserted.body).toMatchObject({ id: created.body.id, status: "customer", email: "ada@example.test" })
    const duplicate = await client.post("/contacts", { email: " ADA@example.test" })
    expect(duplicate.status).toBe(409)
    expect(duplicate.body.error).toBe("email_already_exists")
    const company = await client.post("/companies", { name: "Acme", email: " billing@acme.test " })
    expect(company.status).toBe(201)
    expect(company.body.email).toBe("billing@acme.test")
    const found = await client.get(`/contacts?email=${encodeURIComponent(" ada@example.test ")}`)
    expect(found.body.data.map((contact: { id: string }) => contact.id)).toEqual([created.body.id])
  })
})
