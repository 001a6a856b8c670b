import { expect, it } from "vitest"
import { onEveryStore } from "../support/suite.js"

onEveryStore("event history", (server) => {
  it("records contact and company events with exactly the catalogue's fields", async () => {
    const { client } = await server().tenant()
    const company = await client.post("/companies", { name: "Acme", domain: "acme.test", country: "cz" })
    const contact = await client.post("/contacts", {
      first_name: "Ada",
      email: "ada@example.com",
      company_id: company.body.id
    })
    await client.patch(`/contacts/${contact.body.id}`, { status: "customer" })
    await client.patch(`/companies/${company.body.id}`, { city: "Brno" })
    await client.delete(`/contacts/${contact.body.id}`)

    const page = await client.get("/events")
    expect(page.status).toBe(200)
    expect(page.body.data.map((e: any) => e.event)).toEqual([
      "company.created",
      "contact.created",
      "contact.updated",
      "company.updated"
    ])
    const [companyCreated, contactCreated, contactUpdated, companyUpdated] = page.body.data
    for (const event of page.body.data) {
      expect(Object.keys(event).sort()).toEqual(["created_at", "data", "event", "id"])
      expect(event.id).toMatch(/^\d+$/)
      expect(event.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    }
    expect(Object.keys(contactCreated.data).sort()).toEqual(
      [
        "company_id",
        "created_at",
        "custom",
        "email",
        "first_name",
        "id",
        "last_name",
        "phone",
        "source",
        "status"
      ].sort()
    )
    expect(contactCreated.data).toMatchObject({ id: contact.body.id, company_id: company.body.id, status: "lead" })
    expect(Object.keys(contactUpdated.data).sort()).toEqual([
      "email",
      "first_name",
      "id",
      "last_name",
      "status",
      "updated_at"
    ])
    expect(contactUpdated.data.status).toBe("customer")
    expect(Object.keys(companyCreated.data).sort()).toEqual([
      "city",
      "country",
      "created_at",
      "custom",
      "domain",
      "email",
      "id",
      "name",
      "vat_number"
    ])
    expect(companyCreated.data.country).toBe("CZ")
    expect(Object.keys(companyUpdated.data).sort()).toEqual(["city", "domain", "id", "name", "updated_at"])
    expect(page.body.has_more).toBe(false)
    expect(page.body.next_cursor).toBe(companyUpdated.id)
  })

  it("follows next_cursor without gaps or repeats, filters by name, and keeps organisations apart", async () => {
    const { client } = await server().tenant()
    const other = await server().tenant()
    await other.client.post("/contacts", { first_name: "Elsewhere" })
    for (let i = 0; i < 7; i++) await client.post("/contacts", { first_name: `c${i}` })
    await client.post("/companies", { name: "Acme" })

    const seen: Array<string> = []
    let cursor = "0"
    for (;;) {
      const page = await client.get(`/events?since=${cursor}&limit=3`)
      expect(page.status).toBe(200)
      seen.push(...page.body.data.map((e: any) => e.data.first_name ?? e.data.name))
      cursor = page.body.next_cursor
      if (!page.body.has_more) break
    }
    expect(seen).toEqual(["c0", "c1", "c2", "c3", "c4", "c5", "c6", "Acme"])
    const empty = await client.get(`/events?since=${cursor}`)
    expect(empty.body).toEqual({ data: [], next_cursor: cursor, has_more: false })

    const companies = await client.get("/events?event=company.created")
    expect(companies.body.data.map((e: any) => e.event)).toEqual(["company.created"])
    expect((await client.get("/events?event=deal.won")).body.data).toEqual([])
  })

  it("answers 400 invalid_parameter for a non-numeric cursor or an event outside the catalogue", async () => {
    const { client } = await server().tenant()
    for (const [query, parameter] of [
      ["since=abc", "since"],
      ["since=-1", "since"],
      ["since=1.5", "since"],
      ["event=contact.deleted", "event"]
    ]) {
      const response = await client.get(`/events?${query}`)
      expect(response.status, query).toBe(400)
      expect(response.body.error).toBe("invalid_parameter")
      expect(response.body.detail.parameter).toBe(parameter)
    }
  })

  it("writes no event when the change is refused", async () => {
    const { client } = await server().tenant()
    await client.post("/contacts", { email: "a@example.com" })
    await client.post("/contacts", { email: "a@example.com" })
    await client.post("/contacts", { nickname: "x" })
    expect((await client.get("/events")).body.data).toHaveLength(1)
  })
})
