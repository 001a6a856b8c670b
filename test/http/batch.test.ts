/**
 * Batch writes (`POST /{resource}/batch`) and upserts by natural key (`PUT /contacts/by-email/...`,
 * `/companies/by-domain/...`, `/products/by-sku/...`), through the HTTP server on every store.
 */
import { expect, it } from "vitest"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const eventsOf = async (client: Client, name?: string) => {
  const page = await client.get(`/events?since=0&limit=200${name === undefined ? "" : `&event=${name}`}`)
  expect(page.status).toBe(200)
  return page.body.data as Array<{ event: string; data: any }>
}

const RECORD_SETTINGS = {
  record_types: [{ key: "project", name: "Project", fields: [{ key: "budget", type: "number" }] }]
}

onEveryStore("batch writes", (server) => {
  it("creates every item in one request, answers them in the order sent and emits one event each, in order", async () => {
    const { client } = await server().tenant()
    const items = [
      { first_name: "Ada", email: "ada@example.com" },
      { first_name: "Grace", email: "Grace@Example.com", status: "customer" },
      { last_name: "Hopper" }
    ]
    const answer = await client.post("/contacts/batch", { items })
    expect(answer.status).toBe(201)
    expect(Object.keys(answer.body)).toEqual(["data"])
    expect(answer.body.data.map((c: any) => [c.first_name, c.email, c.status])).toEqual([
      ["Ada", "ada@example.com", "lead"],
      ["Grace", "grace@example.com", "customer"],
      [null, null, "lead"]
    ])
    for (const contact of answer.body.data) {
      expect((await client.get(`/contacts/${contact.id}`)).body).toEqual(contact)
    }
    const events = await eventsOf(client, "contact.created")
    expect(events.map((e) => e.data.id)).toEqual(answer.body.data.map((c: any) => c.id))
  })

  it("keeps nothing when one item is refused, and names the first refused item", async () => {
    const { client } = await server().tenant()
    const refused = await client.post("/contacts/batch", {
      items: [{ first_name: "Ada", email: "ada@example.com" }, { first_name: "Bob" }, { email: "ADA@example.com" }]
    })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toBe("batch_failed")
    expect(refused.body.detail).toMatchObject({ index: 2, error: "email_already_exists" })
    expect((await client.get("/contacts")).body.data).toEqual([])
    expect(await eventsOf(client)).toEqual([])

    // An item the schema refuses is that item's refusal, with paths inside the item.
    const invalid = await client.post("/contacts/batch", {
      items: [{ first_name: "Ok" }, { first_name: "Ok" }, { email: "not an address" }, { phone: 5 }]
    })
    expect(invalid.status).toBe(422)
    expect(invalid.body.error).toBe("batch_failed")
    expect(invalid.body.detail.index).toBe(2)
    expect(invalid.body.detail.error).toBe("validation_failed")
    expect(invalid.body.detail.detail.map((issue: any) => issue.path)).toEqual(["email"])
    expect((await client.get("/contacts")).body.data).toEqual([])
  })

  it("refuses an empty batch, more than 100 items, an unknown mode or field as validation_failed", async () => {
    const { client } = await server().tenant()
    const cases = [
      [{ items: [] }, "items"],
      [{ items: Array.from({ length: 101 }, (_, i) => ({ first_name: `N${i}` })) }, "items"],
      [{ mode: "merge", items: [{ first_name: "A" }] }, "mode"],
      [{ items: [{ first_name: "A" }], extra: 1 }, "extra"],
      [{}, "items"]
    ] as const
    for (const [body, path] of cases) {
      const answer = await client.post("/contacts/batch", body)
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(422)
      expect(answer.body.error).toBe("validation_failed")
      expect(answer.body.detail.map((issue: any) => issue.path)).toContain(path)
    }
    const hundred = await client.post("/contacts/batch", {
      items: Array.from({ length: 100 }, (_, i) => ({ first_name: `N${i}` }))
    })
    expect(hundred.status).toBe(201)
    expect(hundred.body.data).toHaveLength(100)
  })

  it("holds a plan limit inside the batch: the item past it is refused and nothing is kept", async () => {
    const { client } = await server().tenant({ settings: { plan: { max_contacts: 2 } } })
    const refused = await client.post("/contacts/batch", {
      items: [{ first_name: "A" }, { first_name: "B" }, { first_name: "C" }]
    })
    expect(refused.status).toBe(422)
    expect(refused.body.detail).toMatchObject({ index: 2, error: "plan_refused", detail: "MAX_CONTACTS" })
    expect((await client.get("/contacts")).body.data).toEqual([])
  })

  it("replays a batch sent again with its Idempotency-Key and spends one request of the rate budget", async () => {
    const { client } = await server().tenant()
    const before = (await client.get("/me")).body.rate_limit.remaining
    const body = { items: [{ first_name: "A" }, { first_name: "B" }] }
    const first = await client.post("/contacts/batch", body, { "idempotency-key": "batch-1" })
    const after = (await client.get("/me")).body.rate_limit.remaining
    expect(after).toBe(before - 1)
    const again = await client.post("/contacts/batch", body, { "idempotency-key": "batch-1" })
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotency-replayed")).toBe("true")
    expect(again.text).toBe(first.text)
    expect((await client.get("/contacts")).body.data).toHaveLength(2)
    const reused = await client.post(
      "/contacts/batch",
      { items: [{ first_name: "C" }] },
      { "idempotency-key": "batch-1" }
    )
    expect(reused.status).toBe(422)
    expect(reused.body.error).toBe("idempotency_key_reused")
  })

  it("batches companies, deals, tasks, products and records with their own create rules", async () => {
    const { client } = await server().tenant({ settings: RECORD_SETTINGS })
    const companies = await client.post("/companies/batch", { items: [{ name: "Acme" }, { name: "Initech" }] })
    expect(companies.status).toBe(201)
    const contact = (await client.post("/contacts", { first_name: "Ada" })).body
    const deals = await client.post("/deals/batch", {
      items: [
        { title: "One", value: 100, currency: "EUR", contact_id: contact.id },
        { title: "Two", value: 200, currency: "EUR" }
      ]
    })
    expect(deals.status).toBe(201)
    expect(deals.body.data.map((d: any) => d.title)).toEqual(["One", "Two"])
    const tasks = await client.post("/tasks/batch", {
      items: [{ title: "Call", entity_type: "contact", entity_id: contact.id }, { title: "Write" }]
    })
    expect(tasks.status).toBe(201)
    expect(tasks.body.data[0]).toMatchObject({ title: "Call", entity_id: contact.id })
    const products = await client.post("/products/batch", {
      items: [
        { sku: "A-1", name: "Apple", unit_price: 1.5 },
        { sku: "B-1", name: "Banana" }
      ]
    })
    expect(products.status).toBe(201)
    expect(products.body.data.map((p: any) => p.sku)).toEqual(["A-1", "B-1"])
    const records = await client.post("/records/batch", {
      items: [
        { type: "project", title: "Apollo", custom: { budget: 10, colour: "red" } },
        { type: "project", title: "Gemini" }
      ]
    })
    expect(records.status).toBe(201)
    expect(records.body.data[0]).toMatchObject({ title: "Apollo", ignored_fields: ["colour"] })

    // Each resource's own rules refuse an item: a task linked to nothing, a taken SKU, an unknown type.
    const badTask = await client.post("/tasks/batch", {
      items: [{ title: "x" }, { title: "y", entity_type: "deal", entity_id: contact.id }]
    })
    expect(badTask.body).toMatchObject({ error: "batch_failed", detail: { index: 1, error: "validation_failed" } })
    const takenSku = await client.post("/products/batch", {
      items: [
        { sku: "C-1", name: "C" },
        { sku: "A-1", name: "A" }
      ]
    })
    expect(takenSku.body).toMatchObject({ error: "batch_failed", detail: { index: 1, error: "validation_failed" } })
    expect((await client.get("/products?limit=200")).body.data).toHaveLength(2)
    const badType = await client.post("/records/batch", { items: [{ type: "nope", title: "x" }] })
    expect(badType.body).toMatchObject({ error: "batch_failed", detail: { index: 0, error: "validation_failed" } })

    const created = (await eventsOf(client)).map((e) => e.event)
    expect(created.filter((name) => name === "deal.created")).toHaveLength(2)
    expect(created.filter((name) => name === "product.created")).toHaveLength(2)
    expect(created.filter((name) => name === "company.created")).toHaveLength(2)
  })

  it("needs the write scope", async () => {
    const { client } = await server().tenant({ scopes: ["read"] })
    const answer = await client.post("/contacts/batch", { items: [{ first_name: "A" }] })
    expect(answer.status).toBe(403)
    expect(answer.body.error).toBe("missing_scope:write")
  })
})

onEveryStore("upserts by natural key", (server) => {
  it("creates a contact by email (201), changes only the fields sent (200) and emits only when something changed", async () => {
    const { client } = await server().tenant()
    const createdAnswer = await client.put("/contacts/by-email/Ada@Example.com", { first_name: "Ada" })
    expect(createdAnswer.status).toBe(201)
    expect(createdAnswer.body).toMatchObject({ first_name: "Ada", email: "ada@example.com", status: "lead" })
    const id = createdAnswer.body.id

    const same = await client.put("/contacts/by-email/ada@example.com", { first_name: "Ada" })
    expect(same.status).toBe(200)
    expect(same.body).toEqual(createdAnswer.body)

    const changed = await client.put(`/contacts/by-email/${encodeURIComponent("ada@example.com")}`, {
      last_name: "Lovelace",
      email: "ADA@example.com"
    })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ id, first_name: "Ada", last_name: "Lovelace", status: "lead" })
    expect(changed.body.updated_at >= createdAnswer.body.updated_at).toBe(true)

    const events = (await eventsOf(client)).map((e) => e.event)
    expect(events).toEqual(["contact.created", "contact.updated"])
    expect((await client.get("/contacts")).body.data).toHaveLength(1)

    // An empty body creates (or leaves) the contact with only its address.
    expect((await client.put("/contacts/by-email/grace@example.com", {})).status).toBe(201)
    expect((await client.put("/contacts/by-email/grace@example.com")).status).toBe(200)
  })

  it("refuses a body address other than the path's, an invalid address and unknown fields", async () => {
    const { client } = await server().tenant()
    const mismatch = await client.put("/contacts/by-email/ada@example.com", { email: "bob@example.com" })
    expect(mismatch.status).toBe(422)
    expect(mismatch.body.detail[0].path).toBe("email")
    const invalid = await client.put("/contacts/by-email/not-an-address", { first_name: "X" })
    expect(invalid.status).toBe(422)
    expect(invalid.body.detail[0].path).toBe("email")
    const unknown = await client.put("/contacts/by-email/ada@example.com", { nickname: "A" })
    expect(unknown.status).toBe(422)
    expect(unknown.body.detail[0].path).toBe("nickname")
    expect((await client.get("/contacts")).body.data).toEqual([])
  })

  it("upserts a company by domain, case-insensitively, needing a name only to create", async () => {
    const { client } = await server().tenant()
    const nameless = await client.put("/companies/by-domain/acme.test", { city: "Praha" })
    expect(nameless.status).toBe(422)
    expect(nameless.body.detail[0].path).toBe("name")
    const made = await client.put("/companies/by-domain/Acme.test", { name: "Acme" })
    expect(made.status).toBe(201)
    expect(made.body.domain).toBe("Acme.test")
    const changed = await client.put("/companies/by-domain/ACME.TEST", { city: "Praha" })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ id: made.body.id, name: "Acme", city: "Praha", domain: "Acme.test" })
    const unchanged = await client.put("/companies/by-domain/acme.test", { city: "Praha", name: "Acme" })
    expect(unchanged.status).toBe(200)
    expect((await eventsOf(client)).map((e) => e.event)).toEqual(["company.created", "company.updated"])
  })

  it("upserts a product by SKU with PATCH's rules", async () => {
    const { client } = await server().tenant()
    const made = await client.put("/products/by-sku/APL-1", { name: "Apple", unit_price: 2 })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ sku: "APL-1", name: "Apple", unit_price: 2, stock: null })
    const repriced = await client.put("/products/by-sku/APL-1", { unit_price: 2.5 })
    expect(repriced.status).toBe(200)
    expect(repriced.body).toMatchObject({ id: made.body.id, name: "Apple", unit_price: 2.5 })
    expect((await client.put("/products/by-sku/APL-1", { unit_price: 2.5 })).status).toBe(200)
    const badPrice = await client.put("/products/by-sku/APL-1", { unit_price: -1 })
    expect(badPrice.status).toBe(422)
    expect((await eventsOf(client)).map((e) => e.event)).toEqual(["product.created", "product.updated"])
  })

  it("upserts in a batch with mode upsert, answering what each item did", async () => {
    const { client } = await server().tenant()
    await client.put("/contacts/by-email/ada@example.com", { first_name: "Ada" })
    const answer = await client.post("/contacts/batch", {
      mode: "upsert",
      items: [
        { email: "ada@example.com", first_name: "Ada" },
        { email: "bob@example.com", first_name: "Bob" },
        { email: "BOB@example.com", last_name: "Builder" },
        { email: "ada@example.com", status: "customer" }
      ]
    })
    expect(answer.status).toBe(201)
    expect(answer.body.outcomes).toEqual(["unchanged", "created", "updated", "updated"])
    expect(answer.body.data.map((c: any) => [c.email, c.first_name, c.last_name, c.status])).toEqual([
      ["ada@example.com", "Ada", null, "lead"],
      ["bob@example.com", "Bob", null, "lead"],
      ["bob@example.com", "Bob", "Builder", "lead"],
      ["ada@example.com", "Ada", null, "customer"]
    ])
    expect((await client.get("/contacts")).body.data).toHaveLength(2)

    const missingKey = await client.post("/contacts/batch", { mode: "upsert", items: [{ first_name: "No key" }] })
    expect(missingKey.body).toMatchObject({ error: "batch_failed", detail: { index: 0, error: "validation_failed" } })
    expect(missingKey.body.detail.detail[0].path).toBe("email")

    const companies = await client.post("/companies/batch", {
      mode: "upsert",
      items: [{ domain: "a.test", name: "A" }, { domain: "b.test" }]
    })
    expect(companies.body).toMatchObject({ error: "batch_failed", detail: { index: 1, error: "validation_failed" } })
    expect((await client.get("/companies")).body.data).toEqual([])

    const products = await client.post("/products/batch", {
      mode: "upsert",
      items: [
        { sku: "X", name: "Ex" },
        { sku: "X", unit_price: 3 }
      ]
    })
    expect(products.body.outcomes).toEqual(["created", "updated"])

    // Deals have no natural key: their batch knows no upsert mode.
    const deals = await client.post("/deals/batch", { mode: "upsert", items: [{ title: "x" }] })
    expect(deals.body.error).toBe("validation_failed")
  })
})
