import * as StorageMemory from "@crm/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The order every list promises: newest `created_at` first, ties by id descending. */
const newestFirst = (a: any, b: any) =>
  a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? 1 : -1

const BAD_PAGES = ["limit=0", "limit=201", "limit=abc", "offset=-1", "offset=1.5"]

/** The routes the settings page needed besides the first ones, with ids that name nothing. */
const someId = crypto.randomUUID()
const NEW_ROUTES = [
  ["GET", "/organisations"],
  ["GET", `/organisations/${someId}/keys`],
  ["POST", `/hooks/${someId}/rotate-secret`],
  ["GET", `/hooks/${someId}/deliveries`],
  ["POST", `/hooks/${someId}/deliveries/${someId}/redeliver`],
  ["DELETE", `/hooks/${someId}`]
] as const

onEveryStore("admin API", (server) => {
  it("refuses calls without the admin token", async () => {
    const admin = server().admin
    expect(
      (await admin.request("POST", "/organisations", { body: { name: "x" }, headers: { authorization: "" } })).status
    ).toBe(401)
    const wrong = await admin.request("POST", "/organisations", {
      body: { name: "x" },
      headers: { authorization: "Bearer nope" }
    })
    expect(wrong.status).toBe(401)
    expect(wrong.body.error).toBe("invalid_api_key")
  })

  it("creates an organisation with a default pipeline whose stages have ids, open then won then lost", async () => {
    const created = await server().admin.post("/organisations", { name: "Fresh" })
    expect(created.status).toBe(201)
    expect(created.body.name).toBe("Fresh")
    const { settings } = created.body
    expect(settings).toMatchObject({ name: "Fresh", timezone: "UTC", default_currency: "EUR", payment_terms_days: 14 })
    expect(settings.pipelines).toHaveLength(1)
    const kinds = settings.pipelines[0].stages.map((stage: any) => stage.kind)
    expect(kinds[0]).toBe("open")
    expect(kinds.slice(-2)).toEqual(["won", "lost"])
    expect(settings.pipelines[0].id).toMatch(UUID)
    for (const stage of settings.pipelines[0].stages) expect(stage.id).toMatch(UUID)
    expect((await server().admin.get(`/organisations/${created.body.id}`)).body).toEqual(created.body)
  })

  it("replaces settings keeping the ids sent back and validating the document", async () => {
    const created = await server().admin.post("/organisations", { name: "Org" })
    const pipeline = created.body.settings.pipelines[0]
    const next = {
      ...created.body.settings,
      timezone: "Europe/Prague",
      pipelines: [
        { ...pipeline, stages: [...pipeline.stages, { name: "Parked", kind: "open", required_fields: ["value"] }] },
        {
          name: "Renewals",
          stages: [
            { name: "Due", kind: "open" },
            { name: "Renewed", kind: "won" }
          ]
        }
      ]
    }
    const replaced = await server().admin.put(`/organisations/${created.body.id}/settings`, next)
    expect(replaced.status).toBe(200)
    expect(replaced.body.settings.timezone).toBe("Europe/Prague")
    expect(replaced.body.settings.pipelines[0].id).toBe(pipeline.id)
    expect(replaced.body.settings.pipelines[0].stages[0].id).toBe(pipeline.stages[0].id)
    expect(replaced.body.settings.pipelines[1].stages[1].id).toMatch(UUID)
    const bad = await server().admin.put(`/organisations/${created.body.id}/settings`, { timezone: "Mars/Olympus" })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].path).toBe("timezone")
    expect((await server().admin.put(`/organisations/${crypto.randomUUID()}/settings`, {})).status).toBe(404)
  })

  it("shows a key once, stores it usable, and revokes it at once", async () => {
    const org = await server().admin.post("/organisations", { name: "Keys" })
    const key = await server().admin.post(`/organisations/${org.body.id}/keys`, {
      name: "ci",
      scopes: ["read", "write"],
      allowed_ips: ["127.0.0.1/32"]
    })
    expect(key.status).toBe(201)
    expect(key.body).toMatchObject({
      name: "ci",
      scopes: ["read", "write"],
      expires_at: null,
      allowed_ips: ["127.0.0.1/32"]
    })
    expect(key.body.key).toMatch(/^mck_[0-9A-Za-z]{49}$/)
    expect((await server().as(key.body.key).get("/me")).status).toBe(200)
    expect(JSON.stringify((await server().admin.get(`/organisations/${org.body.id}`)).body)).not.toContain(key.body.key)
    expect((await server().admin.delete(`/keys/${key.body.id}`)).status).toBe(204)
    expect((await server().as(key.body.key).get("/me")).status).toBe(401)
    expect((await server().admin.delete(`/keys/${crypto.randomUUID()}`)).status).toBe(404)
    const badScope = await server().admin.post(`/organisations/${org.body.id}/keys`, { scopes: ["admin"] })
    expect(badScope.status).toBe(422)
  })

  it("refuses the listing and hook routes without the admin token", async () => {
    for (const [method, path] of NEW_ROUTES) {
      const bare = await server().admin.request(method, path, { headers: { authorization: "" } })
      expect([path, bare.status, bare.body.error]).toEqual([path, 401, "missing_bearer_token"])
      const wrong = await server().admin.request(method, path, { headers: { authorization: "Bearer nope" } })
      expect([path, wrong.status, wrong.body.error]).toEqual([path, 401, "invalid_api_key"])
    }
  })

  it("lists organisations newest first, a page at a time, each without its settings document", async () => {
    const made = [
      await server().admin.post("/organisations", {
        name: "Listed CZ",
        settings: { timezone: "Europe/Prague", default_currency: "CZK" }
      }),
      await server().admin.post("/organisations", { name: "Listed A" }),
      await server().admin.post("/organisations", { name: "Listed B" })
    ].map((answer) => answer.body)
    const all = await server().admin.get("/organisations?limit=200")
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({ limit: 200, offset: 0, has_more: false })
    const rows: Array<any> = all.body.data
    expect(rows).toEqual([...rows].sort(newestFirst))
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(["created_at", "default_currency", "id", "name", "timezone"])
    }
    for (const organisation of made) {
      const row = rows.find((candidate) => candidate.id === organisation.id)
      expect(row).toEqual({
        id: organisation.id,
        name: organisation.name,
        timezone: organisation.settings.timezone,
        default_currency: organisation.settings.default_currency,
        created_at: expect.any(String)
      })
      expect(Date.parse(row.created_at)).toBeGreaterThan(Date.now() - 60_000)
    }
    expect(rows.find((row) => row.id === made[0].id)).toMatchObject({
      timezone: "Europe/Prague",
      default_currency: "CZK"
    })

    const second = await server().admin.get("/organisations?limit=1&offset=1")
    expect(second.body).toEqual({ data: [rows[1]], limit: 1, offset: 1, has_more: true })
    const last = await server().admin.get(`/organisations?limit=2&offset=${rows.length - 1}`)
    expect(last.body).toEqual({ data: [rows.at(-1)], limit: 2, offset: rows.length - 1, has_more: false })
    expect((await server().admin.get("/organisations")).body.limit).toBe(50)
    for (const query of BAD_PAGES) {
      const bad = await server().admin.get(`/organisations?${query}`)
      expect([query, bad.status, bad.body.error]).toEqual([query, 422, "validation_failed"])
    }
  })

  it("lists an organisation's keys, revoked ones too, never showing a key again", async () => {
    const ownerId = crypto.randomUUID()
    const org = await server().admin.post("/organisations", {
      name: "Key list",
      settings: { users: [{ id: ownerId, name: "Ada", email: "ada@example.com" }] }
    })
    const other = await server().admin.post("/organisations", { name: "Other keys" })
    const created: Array<any> = []
    for (const body of [
      { name: "old", scopes: ["read"] },
      {
        name: "full",
        scopes: ["read", "write", "invoices:write"],
        expires_at: "2030-01-01T01:00:00+01:00",
        allowed_ips: ["10.0.0.0/8"],
        owner_id: ownerId
      },
      { scopes: ["forms:submit"] }
    ]) {
      created.push((await server().admin.post(`/organisations/${org.body.id}/keys`, body)).body)
    }
    await server().admin.post(`/organisations/${other.body.id}/keys`, { scopes: ["read"] })
    expect((await server().admin.delete(`/keys/${created[0].id}`)).status).toBe(204)

    const listed = await server().admin.get(`/organisations/${org.body.id}/keys`)
    expect(listed.status).toBe(200)
    expect(listed.body).toMatchObject({ limit: 50, offset: 0, has_more: false })
    const rows: Array<any> = listed.body.data
    expect(rows).toEqual([...rows].sort(newestFirst))
    expect(rows.map((row) => row.id).sort()).toEqual(created.map((key) => key.id).sort())
    for (const key of created) {
      const { key: secret, ...shown } = key
      const row = rows.find((candidate) => candidate.id === key.id)
      const revokedAt = key === created[0] ? expect.any(String) : null
      // The list tells what the answer of creation does not: who made it (the operator: null) and its last use.
      expect(row).toEqual({
        ...shown,
        created_at: expect.any(String),
        revoked_at: revokedAt,
        created_by: null,
        last_used_at: null
      })
      expect(listed.text).not.toContain(secret)
    }
    expect(rows.find((row) => row.name === "full")).toMatchObject({
      expires_at: "2030-01-01T00:00:00.000Z",
      allowed_ips: ["10.0.0.0/8"],
      owner_id: ownerId
    })
    const revoked = rows.find((row) => row.id === created[0].id)
    expect(Date.parse(revoked.revoked_at)).toBeGreaterThanOrEqual(Date.parse(revoked.created_at))

    const page = await server().admin.get(`/organisations/${org.body.id}/keys?limit=2&offset=1`)
    expect(page.body).toEqual({ data: rows.slice(1), limit: 2, offset: 1, has_more: false })
    expect((await server().admin.get(`/organisations/${org.body.id}/keys?limit=1`)).body.has_more).toBe(true)
    for (const query of BAD_PAGES) {
      const bad = await server().admin.get(`/organisations/${org.body.id}/keys?${query}`)
      expect([query, bad.status, bad.body.error]).toEqual([query, 422, "validation_failed"])
    }
    for (const id of [crypto.randomUUID(), "nope"]) {
      const unknown = await server().admin.get(`/organisations/${id}/keys`)
      expect([id, unknown.status, unknown.body.error]).toEqual([id, 404, "not_found"])
    }
  })
})

describe("the admin API when CRM_ADMIN_TOKEN is unset", () => {
  let server: TestServer | undefined
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer, { withoutAdmin: true })
  })
  afterAll(() => server?.close())

  it("answers 404 on every route, with or without a token", async () => {
    for (const [method, path] of [...NEW_ROUTES, ["POST", "/organisations"] as const]) {
      for (const authorization of ["", "Bearer test-admin-token"]) {
        const answer = await server!.admin.request(method, path, { headers: { authorization } })
        expect([path, answer.status, answer.body.error]).toEqual([path, 404, "not_found"])
      }
    }
  })
})
