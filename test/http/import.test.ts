import { expect, it } from "vitest"
import { checkedFetch } from "../support/responseCheck.js"
import type { Client, TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const SETTINGS = {
  record_types: [
    {
      key: "project",
      name: "Project",
      fields: [
        { key: "stage", type: "select", options: ["idea", "live"] },
        { key: "client", type: "relation", target: "contact" }
      ]
    }
  ]
}

const NDJSON = { "content-type": "application/x-ndjson" }

const lines = (...values: ReadonlyArray<unknown>): string =>
  values.map((value) => (typeof value === "string" ? value : JSON.stringify(value))).join("\n")

const importInto = (
  server: TestServer,
  organisationId: string,
  body: string,
  headers: Record<string, string> = NDJSON
) => server.admin.request("POST", `/organisations/${organisationId}/import`, { raw: body, headers })

/** Every event the organisation's history holds, oldest first. */
const allEvents = async (client: Client): Promise<Array<any>> => {
  const page = await client.get("/events?since=0&limit=200")
  expect(page.status).toBe(200)
  return page.body.data
}

const count = async (client: Client, path: string): Promise<number> => {
  const page = await client.get(`${path}?limit=200`)
  expect(page.status).toBe(200)
  return page.body.data.length
}

const MIXED = lines(
  { type: "company", ref: "acme", name: "Acme s.r.o.", country: "CZ" },
  { type: "contact", ref: "jane", first_name: "Jane", email: "jane@acme.test", company_id: "$ref:acme" },
  "",
  { type: "deal", ref: "big", title: "Big deal", value: 1000, contact_id: "$ref:jane", company_id: "$ref:acme" },
  { type: "task", title: "Call Jane", entity_type: "contact", entity_id: "$ref:jane" },
  { type: "product", ref: "widget", sku: "W-1", name: "Widget", unit_price: 100, vat_rate: 21 },
  {
    type: "quote",
    contact_id: "$ref:jane",
    items: [{ product_id: "$ref:widget", name: "Widget", quantity: 2, unit_price: 100, vat_rate: 21 }]
  },
  {
    type: "record",
    record_type: "project",
    title: "Website",
    custom: { stage: "live", client: ["$ref:jane"] },
    contact_id: "$ref:jane"
  },
  { type: "ticket", subject: "Broken widget", contact_id: "$ref:jane", channel: "email" },
  {
    type: "purchase_order",
    supplier: "Parts Ltd",
    items: [{ product_id: "$ref:widget", name: "Widget", quantity: 5 }]
  },
  {
    type: "call",
    provider: "manual",
    direction: "outbound",
    status: "completed",
    duration_seconds: 120,
    from_number: "+420111",
    to_number: "+420222",
    contact_id: "$ref:jane",
    started_at: "2026-11-20T10:00:00+01:00"
  },
  { type: "stock", product_id: "$ref:widget", count: 10 },
  "   "
)

onEveryStore("admin import", (server) => {
  it("imports a batch of mixed types with $ref links, through the kernel's operations", async () => {
    const { organisation, client } = await server().tenant({ settings: SETTINGS })
    const response = await importInto(server(), organisation.id, MIXED)
    expect(response.body.detail).toBeUndefined()
    expect(response.status).toBe(200)
    expect(response.body.imported).toBe(11)
    expect(response.body.by_type).toEqual({
      company: 1,
      contact: 1,
      deal: 1,
      task: 1,
      product: 1,
      quote: 1,
      record: 1,
      ticket: 1,
      purchase_order: 1,
      call: 1,
      stock: 1
    })
    const items = response.body.items
    // Blank lines are skipped but keep their place in the line numbering.
    expect(items.map((item: any) => item.line)).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    expect(items.map((item: any) => item.type)).toEqual([
      "company",
      "contact",
      "deal",
      "task",
      "product",
      "quote",
      "record",
      "ticket",
      "purchase_order",
      "call",
      "stock"
    ])
    expect(items[0]).toMatchObject({ line: 1, type: "company", ref: "acme" })
    expect(items[3]).not.toHaveProperty("ref")
    const id = (ref: string) => items.find((item: any) => item.ref === ref).id
    const [acme, jane, big, widget] = [id("acme"), id("jane"), id("big"), id("widget")]

    const contact = await client.get(`/contacts/${jane}`)
    expect(contact.body).toMatchObject({ first_name: "Jane", email: "jane@acme.test", company_id: acme })
    const deal = await client.get(`/deals/${big}`)
    expect(deal.body).toMatchObject({ title: "Big deal", contact_id: jane })
    const tasks = await client.get(`/tasks?entity_id=${jane}`)
    expect(tasks.body.data.map((task: any) => task.title)).toEqual(["Call Jane"])
    const quote = await client.get(`/quotes/${items[5].id}`)
    expect(quote.body).toMatchObject({ status: "draft", contact_id: jane, total: 242 })
    expect(quote.body.items[0].product_id).toBe(widget)
    // The stocktake answers the product's id and starts tracking its stock.
    expect(items[10].id).toBe(widget)
    expect((await client.get(`/products/${widget}`)).body.stock).toBe(10)
    const record = await client.get(`/records/${items[6].id}`)
    expect(record.body).toMatchObject({
      type_key: "project",
      contact_id: jane,
      custom: { stage: "live", client: [jane] }
    })

    const names = (await allEvents(client)).map((event) => event.event)
    expect(names).toEqual([
      "company.created",
      "contact.created",
      "deal.created",
      "task.created",
      "product.created",
      "quote.created",
      "record.created",
      "ticket.created",
      "call.ended"
    ])
  })

  it("imports notes, sites, pages, posts, link pages, booking series and bookings", async () => {
    const { organisation, client } = await server().tenant()
    const response = await importInto(
      server(),
      organisation.id,
      lines(
        { type: "contact", ref: "jane", first_name: "Jane", email: "jane@example.com" },
        { type: "note", entity_type: "contact", entity_id: "$ref:jane", body: "Met at the fair" },
        {
          type: "note",
          note_type: "call",
          entity_type: "contact",
          entity_id: "$ref:jane",
          body: "Called back",
          call: { duration_seconds: 60 }
        },
        { type: "site", ref: "web", name: "Website", domain: "www.example.com" },
        { type: "page", site_id: "$ref:web", path: "/about", title: "About us" },
        { type: "post", site_id: "$ref:web", slug: "hello", title: "Hello", body: "First post" },
        { type: "link_page", slug: "links", title: "Our links", links: [] },
        { type: "booking_series", ref: "intro", name: "Intro call", duration_minutes: 30 },
        {
          type: "booking",
          series_id: "$ref:intro",
          contact_id: "$ref:jane",
          name: "Jane",
          email: "jane@example.com",
          starts_at: "2026-12-01T10:00:00Z"
        }
      )
    )
    expect(response.body.detail).toBeUndefined()
    expect(response.status).toBe(200)
    expect(response.body.by_type).toEqual({
      contact: 1,
      note: 2,
      site: 1,
      page: 1,
      post: 1,
      link_page: 1,
      booking_series: 1,
      booking: 1
    })
    const names = (await allEvents(client)).map((event) => event.event)
    // The call note logs its call, which emits call.ended like any completed call.
    expect(names).toEqual(["contact.created", "call.ended"])

    const wrongNoteType = await importInto(
      server(),
      organisation.id,
      lines({ type: "note", note_type: "fax", entity_type: "contact", entity_id: "$ref:none", body: "x" })
    )
    expect(wrongNoteType.body.detail).toMatchObject({ line: 1, type: "note", error: "validation_failed" })
    expect(wrongNoteType.body.detail.detail[0]).toMatchObject({ path: "entity_id", code: "unknown_ref" })
    const badNoteType = await importInto(
      server(),
      organisation.id,
      lines({ type: "note", note_type: "fax", entity_type: "contact", entity_id: response.body.items[0].id, body: "x" })
    )
    expect(badNoteType.body.detail.detail.map((issue: any) => issue.path)).toEqual(["note_type"])
  })

  it("accepts application/jsonl and an empty batch", async () => {
    const { organisation } = await server().tenant()
    const one = await importInto(server(), organisation.id, lines({ type: "contact", last_name: "Solo" }), {
      "content-type": "application/jsonl; charset=utf-8"
    })
    expect(one.status).toBe(200)
    expect(one.body.imported).toBe(1)
    const none = await importInto(server(), organisation.id, "\n\n")
    expect(none.status).toBe(200)
    expect(none.body).toEqual({
      dry_run: false,
      imported: 0,
      by_type: {},
      outcomes: { created: 0, updated: 0, unchanged: 0 },
      items: [],
      refused: null
    })
  })

  it("upserts contacts by email, companies by domain and products by SKU with mode=upsert", async () => {
    const { organisation, client } = await server().tenant()
    await client.post("/contacts", { first_name: "Jane", email: "jane@acme.test" })
    await client.post("/products", { sku: "W-1", name: "Widget", unit_price: 100 })
    const body = lines(
      { type: "company", ref: "acme", name: "Acme", domain: "acme.test" },
      { type: "contact", email: "JANE@acme.test", last_name: "Doe", company_id: "$ref:acme" },
      { type: "contact", email: "new@acme.test", first_name: "New" },
      { type: "contact", first_name: "No key" },
      { type: "product", sku: "W-1", unit_price: 100 },
      { type: "product", sku: "W-2", name: "Gadget" },
      { type: "company", domain: "ACME.test", city: "Praha" }
    )
    const response = await server().admin.request("POST", `/organisations/${organisation.id}/import?mode=upsert`, {
      raw: body,
      headers: NDJSON
    })
    expect(response.status).toBe(200)
    expect(response.body.items.map((item: any) => item.outcome)).toEqual([
      "created",
      "updated",
      "created",
      "created",
      "unchanged",
      "created",
      "updated"
    ])
    expect(response.body.outcomes).toEqual({ created: 4, updated: 2, unchanged: 1 })
    const jane = (await client.get("/contacts?email=jane@acme.test")).body.data[0]
    expect(jane).toMatchObject({ first_name: "Jane", last_name: "Doe", company_id: response.body.items[0].id })
    expect(await count(client, "/contacts")).toBe(3)
    expect(await count(client, "/companies")).toBe(1)
    expect(await count(client, "/products")).toBe(2)
    expect((await client.get(`/companies/${response.body.items[0].id}`)).body.city).toBe("Praha")

    // The same file again changes nothing that upserts can find (the line without a key creates again).
    const again = await server().admin.request("POST", `/organisations/${organisation.id}/import?mode=upsert`, {
      raw: body,
      headers: NDJSON
    })
    expect(again.body.outcomes).toEqual({ created: 1, updated: 0, unchanged: 6 })
  })

  it("reports what a dry run would create, change and refuse, and writes nothing", async () => {
    const { organisation, client } = await server().tenant()
    await client.post("/contacts", { first_name: "Jane", email: "jane@acme.test" })
    const before = await allEvents(client)
    const dry = (body: string, mode = "create") =>
      server().admin.request("POST", `/organisations/${organisation.id}/import?mode=${mode}&dry_run=true`, {
        raw: body,
        headers: NDJSON
      })
    const fine = await dry(
      lines(
        { type: "company", ref: "acme", name: "Acme" },
        { type: "contact", email: "jane@acme.test", last_name: "Doe", company_id: "$ref:acme" },
        { type: "deal", title: "Big", contact_id: "$ref:acme" }
      ),
      "upsert"
    )
    expect(fine.status).toBe(200)
    expect(fine.body).toMatchObject({
      dry_run: true,
      imported: 2,
      outcomes: { created: 1, updated: 1, unchanged: 0 },
      refused: { line: 3, type: "deal", error: "validation_failed" }
    })
    const clean = await dry(lines({ type: "contact", email: "x@acme.test" }, { type: "company", name: "Y" }))
    expect(clean.body).toMatchObject({ dry_run: true, imported: 2, refused: null, by_type: { contact: 1, company: 1 } })
    expect(await count(client, "/contacts")).toBe(1)
    expect(await count(client, "/companies")).toBe(0)
    expect(await allEvents(client)).toEqual(before)
    const bad = await server().admin.request("POST", `/organisations/${organisation.id}/import?dry_run=yes`, {
      raw: "",
      headers: NDJSON
    })
    expect(bad.status).toBe(422)
  })

  it("rolls the whole batch back when a line in the middle fails", async () => {
    const { organisation, client } = await server().tenant()
    const body = lines(
      { type: "company", ref: "acme", name: "Acme" },
      { type: "contact", first_name: "Jane", email: "jane@acme.test", company_id: "$ref:acme" },
      { type: "contact", first_name: "Janet", email: "JANE@acme.test" },
      { type: "contact", first_name: "Never", email: "never@acme.test" }
    )
    const response = await importInto(server(), organisation.id, body)
    expect(response.status).toBe(422)
    expect(response.body.error).toBe("import_failed")
    expect(response.body.detail).toMatchObject({ line: 3, type: "contact", error: "email_already_exists" })
    expect(await count(client, "/contacts")).toBe(0)
    expect(await count(client, "/companies")).toBe(0)
    expect(await allEvents(client)).toEqual([])
  })

  it("names a line that fails validation with the kernel's detail", async () => {
    const { organisation, client } = await server().tenant({ settings: SETTINGS })
    const response = await importInto(
      server(),
      organisation.id,
      lines(
        { type: "contact", ref: "jane", first_name: "Jane" },
        { type: "deal", value: 10, contact_id: "$ref:jane" },
        { type: "record", record_type: "project", custom: { stage: "nope" } }
      )
    )
    expect(response.status).toBe(422)
    expect(response.body.detail).toMatchObject({ line: 2, type: "deal", error: "validation_failed" })
    expect(response.body.detail.detail.map((issue: any) => issue.path)).toEqual(["title"])
    const record = await importInto(
      server(),
      organisation.id,
      lines({ type: "record", ref: "r", extra: 1 }, { type: "contact", first_name: "x" })
    )
    expect(record.body.detail).toMatchObject({ line: 1, type: "record", error: "validation_failed" })
    expect(record.body.detail.detail.map((issue: any) => issue.path).sort()).toEqual(["extra", "record_type"])
    expect(await count(client, "/contacts")).toBe(0)
  })

  it("refuses an unknown type, an unknown or repeated ref and a line that is not an object", async () => {
    const { organisation } = await server().tenant()
    const unknownType = await importInto(
      server(),
      organisation.id,
      lines({ type: "contact", last_name: "A" }, { type: "spaceship" })
    )
    expect(unknownType.status).toBe(422)
    expect(unknownType.body.detail).toMatchObject({ line: 2, type: "spaceship", error: "validation_failed" })
    expect(unknownType.body.detail.detail[0]).toMatchObject({ path: "type", code: "unknown_type" })

    const noType = await importInto(server(), organisation.id, lines({ first_name: "A" }))
    expect(noType.body.detail).toMatchObject({ line: 1, type: null, error: "validation_failed" })

    const notObject = await importInto(server(), organisation.id, lines([1, 2]))
    expect(notObject.body.detail).toMatchObject({ line: 1, type: null, error: "validation_failed" })

    const unknownRef = await importInto(
      server(),
      organisation.id,
      lines({ type: "task", title: "T", entity_type: "contact", entity_id: "$ref:ghost" })
    )
    expect(unknownRef.body.detail).toMatchObject({ line: 1, type: "task", error: "validation_failed" })
    expect(unknownRef.body.detail.detail).toEqual([
      { path: "entity_id", message: "no earlier line has ref ghost", code: "unknown_ref" }
    ])

    const repeated = await importInto(
      server(),
      organisation.id,
      lines({ type: "contact", ref: "a", last_name: "A" }, { type: "contact", ref: "a", last_name: "B" })
    )
    expect(repeated.body.detail).toMatchObject({ line: 2, type: "contact", error: "validation_failed" })
    expect(repeated.body.detail.detail[0]).toMatchObject({ path: "ref", code: "duplicate_ref" })
  })

  it("answers invalid_json for a malformed line, with its line number", async () => {
    const { organisation, client } = await server().tenant()
    const response = await importInto(
      server(),
      organisation.id,
      `${lines({ type: "contact", last_name: "A" })}\n\n{"type": "contact",`
    )
    expect(response.status).toBe(422)
    expect(response.body.error).toBe("import_failed")
    expect(response.body.detail).toMatchObject({ line: 3, type: null, error: "invalid_json" })
    expect(await count(client, "/contacts")).toBe(0)
  })

  it("takes at most 5000 lines", async () => {
    const { organisation, client } = await server().tenant()
    const body = Array.from({ length: 5001 }, (_, i) => lines({ type: "contact", last_name: `C${i}` })).join("\n")
    const response = await importInto(server(), organisation.id, body)
    expect(response.status).toBe(422)
    expect(response.body.detail).toMatchObject({ line: 5001, error: "too_many_lines" })
    expect(await count(client, "/contacts")).toBe(0)
  })

  it("answers not_found for an unknown organisation", async () => {
    const response = await importInto(
      server(),
      "00000000-0000-4000-8000-000000000000",
      lines({ type: "contact", last_name: "A" })
    )
    expect(response.status).toBe(404)
    expect(response.body.error).toBe("not_found")
  })

  it("needs the admin token and a JSON lines body", async () => {
    const { organisation, key } = await server().tenant()
    const path = `${server().url}/admin/v1/organisations/${organisation.id}/import`
    const body = lines({ type: "contact", last_name: "A" })
    const anonymous = await checkedFetch(path, { method: "POST", headers: NDJSON, body })
    expect(anonymous.status).toBe(401)
    expect(((await anonymous.json()) as any).error).toBe("missing_bearer_token")
    const withKey = await checkedFetch(path, {
      method: "POST",
      headers: { ...NDJSON, authorization: `Bearer ${key}` },
      body
    })
    expect(withKey.status).toBe(401)
    expect(((await withKey.json()) as any).error).toBe("invalid_api_key")
    const asJson = await importInto(server(), organisation.id, body, { "content-type": "application/json" })
    expect(asJson.status).toBe(415)
    expect(asJson.body.error).toBe("unsupported_media_type")
  })
})
