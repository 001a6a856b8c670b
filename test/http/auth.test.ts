import { expect, it } from "vitest"
import { onEveryStore } from "../support/suite.js"

onEveryStore("authentication and scopes", (server) => {
  it("refuses a request without a bearer token", async () => {
    const response = await server().anonymous.get("/contacts")
    expect(response.status).toBe(401)
    expect(response.body.error).toBe("missing_bearer_token")
    const basic = await server().anonymous.get("/contacts", { authorization: "Basic abc" })
    expect(basic.body.error).toBe("missing_bearer_token")
  })

  it("gives unknown, mistyped and revoked keys byte-identical 401 bodies", async () => {
    const { key, keyId, client } = await server().tenant()
    expect((await client.get("/me")).status).toBe(200)
    const headers = { "x-request-id": "same-request-id" }
    const mistyped = key.slice(0, -1) + (key.endsWith("A") ? "B" : "A")
    const unknown = await server()
      .as("mck_" + "0".repeat(43) + "000000")
      .get("/contacts", headers)
    const typo = await server().as(mistyped).get("/contacts", headers)
    const garbage = await server().as("not-a-key").get("/contacts", headers)
    expect((await server().admin.delete(`/keys/${keyId}`)).status).toBe(204)
    const revoked = await client.get("/contacts", headers)
    for (const response of [unknown, typo, garbage, revoked]) {
      expect(response.status).toBe(401)
      expect(response.body.error).toBe("invalid_api_key")
      expect(response.text).toBe(revoked.text)
    }
  })

  it("refuses an expired key with expired_api_key", async () => {
    const { organisation } = await server().tenant()
    const expired = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      scopes: ["read"],
      expires_at: new Date(Date.now() - 1000).toISOString()
    })
    expect(expired.status).toBe(201)
    const response = await server().as(expired.body.key).get("/contacts")
    expect(response.status).toBe(401)
    expect(response.body.error).toBe("expired_api_key")
    const future = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      scopes: ["read"],
      expires_at: "2999-01-01T00:00:00+02:00"
    })
    expect(future.body.expires_at).toBe("2998-12-31T22:00:00.000Z")
    expect((await server().as(future.body.key).get("/contacts")).status).toBe(200)
  })

  it("applies the key's IP allow-list to the socket address, ignoring X-Forwarded-For", async () => {
    const { organisation } = await server().tenant()
    const elsewhere = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      scopes: ["read"],
      allowed_ips: ["10.0.0.0/8", "2001:db8::/32"]
    })
    const outside = await server().as(elsewhere.body.key).get("/contacts", { "x-forwarded-for": "10.1.2.3" })
    expect(outside.status).toBe(401)
    expect(outside.body.error).toBe("invalid_api_key")
    const local = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      scopes: ["read"],
      allowed_ips: ["127.0.0.0/8", "::1"]
    })
    expect((await server().as(local.body.key).get("/contacts")).status).toBe(200)
    const invalid = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      scopes: ["read"],
      allowed_ips: ["300.1.1.1/8"]
    })
    expect(invalid.status).toBe(422)
  })

  it("enforces scopes: read-only keys cannot write, keys without read cannot read", async () => {
    const readOnly = await server().tenant({ scopes: ["read"] })
    const refused = await readOnly.client.post("/contacts", { first_name: "A" })
    expect(refused.status).toBe(403)
    expect(refused.body.error).toBe("missing_scope:write")
    expect((await readOnly.client.get("/contacts")).status).toBe(200)

    const writeOnly = await server().tenant({ scopes: ["write"] })
    const noRead = await writeOnly.client.get("/contacts")
    expect(noRead.status).toBe(403)
    expect(noRead.body.error).toBe("missing_scope:read")
    expect((await writeOnly.client.post("/contacts", { first_name: "A" })).status).toBe(201)
  })

  it("refuses writes on a read-only plan and creates past a counted limit, with the reason", async () => {
    const frozen = await server().tenant({ settings: { plan: { read_only: true } } })
    const refused = await frozen.client.post("/contacts", { first_name: "A" })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ error: "plan_refused", detail: "READ_ONLY" })
    expect((await frozen.client.get("/contacts")).status).toBe(200)

    const small = await server().tenant({ settings: { plan: { max_contacts: 1 } } })
    expect((await small.client.post("/contacts", { first_name: "A" })).status).toBe(201)
    const over = await small.client.post("/contacts", { first_name: "B" })
    expect(over.status).toBe(403)
    expect(over.body).toMatchObject({ error: "plan_refused", detail: "MAX_CONTACTS" })
  })

  it.each([
    ["max_contacts", "/contacts", "first_name", "MAX_CONTACTS"],
    ["max_companies", "/companies", "name", "MAX_COMPANIES"]
  ])("holds %s exactly under 30 concurrent creates", async (limit, path, field, code) => {
    const { client } = await server().tenant({ settings: { plan: { [limit]: 5 } } })
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => client.post(path, { [field]: `N${i}` })))
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5)
    const refused = answers.filter((answer) => answer.status !== 201)
    expect(refused).toHaveLength(25)
    for (const answer of refused) {
      expect(answer.status).toBe(403)
      expect(answer.body).toMatchObject({ error: "plan_refused", detail: code })
    }
    expect((await client.get(`${path}?limit=200`)).body.data).toHaveLength(5)
  })
})

onEveryStore(
  "trusted proxy",
  (server) => {
    it("takes the client address from X-Forwarded-For only when the socket is a trusted proxy", async () => {
      const { organisation } = await server().tenant()
      const key = await server().admin.post(`/organisations/${organisation.id}/keys`, {
        scopes: ["read"],
        allowed_ips: ["203.0.113.0/24"]
      })
      const client = server().as(key.body.key)
      expect((await client.get("/contacts", { "x-forwarded-for": "203.0.113.9" })).status).toBe(200)
      expect((await client.get("/contacts", { "x-forwarded-for": "198.51.100.1" })).status).toBe(401)
      expect((await client.get("/contacts")).status).toBe(401)
    })
  },
  { trustedProxies: ["127.0.0.1", "::1"] }
)
