import { expect, it } from "vitest"
import { newestFirst } from "../support/answers.js"
import { onEveryStore } from "../support/suite.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

onEveryStore("contacts", (server) => {
  it("creates, reads, updates and archives a contact", async () => {
    const { client } = await server().tenant()
    const created = await client.post("/contacts", {
      first_name: "Ada",
      last_name: "Lovelace",
      email: "Ada@Example.com",
      phone: "+420 123",
      custom: { tier: "gold" }
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
      phone: "+420 123",
      company_id: null,
      status: "lead",
      source: null,
      custom: { tier: "gold" }
    })
    expect(Object.keys(created.body).sort()).toEqual([
      "company_id",
      "created_at",
      "custom",
      "email",
      "first_name",
      "id",
      "last_name",
      "phone",
      "source",
      "status",
      "updated_at"
    ])
    expect(created.body.created_at).toMatch(ISO_MS)
    expect(created.body.updated_at).toMatch(ISO_MS)

    const id = created.body.id
    expect((await client.get(`/contacts/${id}`)).body).toEqual(created.body)

    const patched = await client.patch(`/contacts/${id}`, { status: "customer", phone: null })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ first_name: "Ada", status: "customer", phone: null })

    const removed = await client.delete(`/contacts/${id}`)
    expect(removed.status).toBe(204)
    expect(removed.text).toBe("")
    expect((await client.get(`/contacts/${id}`)).status).toBe(404)
    expect((await client.patch(`/contacts/${id}`, { status: "lead" })).status).toBe(404)
    expect((await client.delete(`/contacts/${id}`)).status).toBe(404)
    expect((await client.get("/contacts")).body.data).toEqual([])
  })

  it("needs one of first_name, last_name or email", async () => {
    const { client } = await server().tenant()
    const refused = await client.post("/contacts", { phone: "123" })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toBe("validation_failed")
    expect((await client.post("/contacts", { last_name: "Only" })).status).toBe(201)
  })

  it("refuses a second live holder of an address, naming the holder, and frees it on archive", async () => {
    const { client } = await server().tenant()
    const first = await client.post("/contacts", { email: "dup@example.com" })
    const second = await client.post("/contacts", { email: "DUP@example.com" })
    expect(second.status).toBe(409)
    expect(second.body.error).toBe("email_already_exists")
    expect(second.body.detail.id).toBe(first.body.id)

    const other = await client.post("/contacts", { email: "other@example.com" })
    const taken = await client.patch(`/contacts/${other.body.id}`, { email: "dup@example.com" })
    expect(taken.status).toBe(409)
    expect(taken.body.detail.id).toBe(first.body.id)

    expect((await client.delete(`/contacts/${first.body.id}`)).status).toBe(204)
    expect((await client.post("/contacts", { email: "dup@example.com" })).status).toBe(201)
  })

  it("keeps organisations apart: another organisation's id is 404 and its email is no conflict", async () => {
    const a = await server().tenant()
    const b = await server().tenant()
    const contact = await a.client.post("/contacts", { email: "shared@example.com" })
    expect((await b.client.get(`/contacts/${contact.body.id}`)).status).toBe(404)
    expect((await b.client.get(`/contacts/${contact.body.id}`)).body.error).toBe("not_found")
    expect((await b.client.patch(`/contacts/${contact.body.id}`, { first_name: "x" })).status).toBe(404)
    expect((await b.client.delete(`/contacts/${contact.body.id}`)).status).toBe(404)
    expect((await b.client.post("/contacts", { email: "shared@example.com" })).status).toBe(201)
    expect((await b.client.get("/contacts")).body.data).toHaveLength(1)
    expect((await a.client.get(`/contacts/${contact.body.id}`)).status).toBe(200)
  })

  it("links a company only of the same organisation", async () => {
    const a = await server().tenant()
    const b = await server().tenant()
    const company = await a.client.post("/companies", { name: "Acme" })
    const foreign = await b.client.post("/contacts", { email: "x@example.com", company_id: company.body.id })
    expect(foreign.status).toBe(422)
    expect(foreign.body.detail[0].path).toBe("company_id")
    const own = await a.client.post("/contacts", { email: "x@example.com", company_id: company.body.id })
    expect(own.status).toBe(201)
    expect(own.body.company_id).toBe(company.body.id)
  })

  it("answers 404 for a malformed id, never 500", async () => {
    const { client } = await server().tenant()
    for (const id of ["not-a-uuid", "1", "'; DROP TABLE contacts; --", "%E0%A4%A"]) {
      const response = await client.get(`/contacts/${encodeURIComponent(id)}`)
      expect(response.status).toBe(404)
      expect(response.body.error).toBe("not_found")
    }
  })

  it("filters by email, status, updated_since and q, with literal wildcards", async () => {
    const { client } = await server().tenant()
    const ada = await client.post("/contacts", { first_name: "Ada", email: "ada@example.com", status: "customer" })
    await client.post("/contacts", { first_name: "Bob", email: "bob@example.com", phone: "777 100" })
    await client.post("/contacts", { first_name: "100%_sure", email: "pct@example.com" })

    const byEmail = await client.get("/contacts?email=ADA@example.com")
    expect(byEmail.body.data.map((c: any) => c.id)).toEqual([ada.body.id])
    expect((await client.get("/contacts?status=customer")).body.data).toHaveLength(1)
    expect((await client.get("/contacts?q=BOB")).body.data).toHaveLength(1)
    expect((await client.get("/contacts?q=777")).body.data).toHaveLength(1)
    expect((await client.get("/contacts?q=example.com")).body.data).toHaveLength(3)
    expect((await client.get(`/contacts?q=${encodeURIComponent("%")}`)).body.data).toHaveLength(1)
    expect((await client.get(`/contacts?q=${encodeURIComponent("0%_s")}`)).body.data).toHaveLength(1)
    expect((await client.get(`/contacts?q=${encodeURIComponent("_")}`)).body.data).toHaveLength(1)
    expect((await client.get(`/contacts?q=${encodeURIComponent("*")}`)).body.data).toHaveLength(0)

    const later = new Date(Date.now() + 60_000).toISOString()
    expect((await client.get(`/contacts?updated_since=${later}`)).body.data).toHaveLength(0)
    const earlier = new Date(Date.now() - 60_000).toISOString().replace("Z", "+00:00")
    expect((await client.get(`/contacts?updated_since=${encodeURIComponent(earlier)}`)).body.data).toHaveLength(3)

    const unknown = await client.get("/contacts?status=vip")
    expect(unknown.status).toBe(422)
    expect(unknown.body.error).toBe("validation_failed")
  })

  it("pages newest first with a stable envelope and refuses out-of-range paging", async () => {
    const { client } = await server().tenant()
    const created: Array<{ id: string; created_at: string }> = []
    for (let i = 0; i < 5; i++) created.push((await client.post("/contacts", { first_name: `n${i}` })).body)
    const ids = newestFirst(...created)
    const first = await client.get("/contacts?limit=2")
    expect(first.body).toMatchObject({ limit: 2, offset: 0, has_more: true })
    expect(first.body.data.map((c: any) => c.id)).toEqual([ids[0], ids[1]])
    const last = await client.get("/contacts?limit=2&offset=4")
    expect(last.body).toMatchObject({ limit: 2, offset: 4, has_more: false })
    expect(last.body.data.map((c: any) => c.id)).toEqual([ids[4]])
    expect((await client.get("/contacts")).body.limit).toBe(50)
    for (const query of ["limit=0", "limit=201", "limit=abc", "offset=-1", "offset=1.5", "limit=100000000000"]) {
      const refused = await client.get(`/contacts?${query}`)
      expect(refused.status, query).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
    }
  })

  it("refuses unknown fields and wrong types, and treats an empty PATCH as no_fields_to_update", async () => {
    const { client } = await server().tenant()
    const unknown = await client.post("/contacts", { first_name: "A", nickname: "x" })
    expect(unknown.status).toBe(422)
    expect(unknown.body.detail).toEqual([expect.objectContaining({ path: "nickname" })])
    const wrongType = await client.post("/contacts", { first_name: 42, status: "vip" })
    expect(wrongType.status).toBe(422)
    expect(wrongType.body.detail.map((issue: any) => issue.path).sort()).toEqual(["first_name", "status"])
    const id = (await client.post("/contacts", { first_name: "A" })).body.id
    for (const body of [{}, { nickname: "x" }]) {
      const empty = await client.patch(`/contacts/${id}`, body)
      expect(empty.status).toBe(422)
      expect(empty.body.error).toBe("no_fields_to_update")
    }
    const mixed = await client.patch(`/contacts/${id}`, { first_name: "B", nickname: "x" })
    expect(mixed.status).toBe(422)
    expect(mixed.body.error).toBe("validation_failed")
    expect(mixed.body.detail[0].path).toBe("nickname")
    expect((await client.get(`/contacts/${id}`)).body.first_name).toBe("A")
    const sqlish = await client.post("/contacts", { first_name: "Robert'); DROP TABLE contacts;--" })
    expect(sqlish.status).toBe(201)
    expect((await client.get(`/contacts/${sqlish.body.id}`)).body.first_name).toBe("Robert'); DROP TABLE contacts;--")
  })
})
