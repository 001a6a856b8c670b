/**
 * Quotes over HTTP, written from the contract (spec: Quote, quotes endpoints, events, errors) and the
 * decisions page (Line, QuoteCreate, numbers, admin transitions).
 */
import { expect, it } from "vitest"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"
import { onOneDay } from "../support/today.js"

const SCOPES = ["read", "write", "quotes:write", "invoices:write"]

const SETTINGS = { default_currency: "CZK", timezone: "Europe/Prague", country: "CZ" }

const line = (overrides: Record<string, unknown> = {}) => ({
  name: "Consulting",
  quantity: 3,
  unit_price: 33.33,
  vat_rate: 21,
  ...overrides
})

const events = async (client: Client, name?: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0${name === undefined ? "" : `&event=${name}`}`)
  expect(page.status).toBe(200)
  return page.body.data
}

const paths = (response: { body: any }): Array<string> => response.body.detail.map((issue: any) => issue.path).sort()

const bySortedRate = (rows: Array<any>) => [...rows].sort((a, b) => b.vat_rate - a.vat_rate)

/** A quote in a given state, moved there through the admin API. */
const quoteIn = async (
  admin: Client,
  client: Client,
  status: "draft" | "sent" | "accepted" | "rejected" | "cancelled",
  body: Record<string, unknown> = {}
) => {
  const created = await client.post("/quotes", { items: [line()], ...body })
  expect(created.status).toBe(201)
  const id = created.body.id
  const steps: Record<typeof status, Array<string>> = {
    draft: [],
    sent: ["send"],
    accepted: ["send", "accept"],
    rejected: ["send", "reject"],
    cancelled: ["cancel"]
  }
  for (const action of steps[status]) {
    const moved = await admin.post(`/quotes/${id}/${action}`)
    expect(moved.status, `${action} ${moved.text}`).toBe(200)
  }
  return (await client.get(`/quotes/${id}`)).body
}

onEveryStore("quotes", (server) => {
  it("creates a numbered draft priced per line, in the organisation's currency, and emits quote.created", () =>
    onOneDay(SETTINGS.timezone, async (today) => {
      const { client } = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
      const year = Number(today.slice(0, 4))
      const contact = await client.post("/contacts", { first_name: "Ada", last_name: "Lovelace" })
      const company = await client.post("/companies", { name: "Acme" })

      const created = await client.post("/quotes", {
        contact_id: contact.body.id,
        company_id: company.body.id,
        currency: "EUR",
        valid_until: "2030-01-31",
        note: "Thanks",
        items: [
          line(),
          // 2.675 is not exact in binary floating point: exact decimal arithmetic rounds it half away to 2.68.
          { name: "Rounding", quantity: 1, unit_price: 2.675, vat_rate: 10 },
          { name: "Licence", quantity: 4, unit_price: 12.5, vat_rate: 21, discount_percent: 10, unit: "pcs" }
        ]
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({
        number: `Q${year}-0001`,
        status: "draft",
        revision: 0,
        currency: "EUR",
        contact_id: contact.body.id,
        company_id: company.body.id,
        valid_until: "2030-01-31",
        note: "Thanks",
        subtotal: 147.67,
        vat_total: 30.72,
        total: 178.39
      })
      expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/)
      expect(created.body.items).toHaveLength(3)
      expect(created.body.items[0]).toMatchObject({
        name: "Consulting",
        quantity: 3,
        unit_price: 33.33,
        vat_rate: 21,
        net: 99.99,
        vat: 21,
        gross: 120.99
      })
      expect(created.body.items[1]).toMatchObject({ name: "Rounding", net: 2.68, vat: 0.27, gross: 2.95 })
      expect(created.body.items[2]).toMatchObject({
        name: "Licence",
        discount_percent: 10,
        unit: "pcs",
        net: 45,
        vat: 9.45,
        gross: 54.45
      })
      expect(bySortedRate(created.body.vat_summary)).toEqual([
        { vat_rate: 21, net: 144.99, vat: 30.45, gross: 175.44 },
        { vat_rate: 10, net: 2.68, vat: 0.27, gross: 2.95 }
      ])
      expect((await client.get(`/quotes/${created.body.id}`)).body).toEqual(created.body)

      // Without a currency the quote takes the organisation's; the series counts on.
      const second = await client.post("/quotes", { items: [line()] })
      expect(second.status).toBe(201)
      expect(second.body).toMatchObject({ number: `Q${year}-0002`, currency: "CZK", contact_id: null, total: 120.99 })

      const emitted = await events(client, "quote.created")
      expect(emitted).toHaveLength(2)
      for (const event of emitted) {
        expect(Object.keys(event.data).sort()).toEqual(["contact_id", "currency", "id", "number", "status", "total"])
      }
      expect(emitted[0].data).toEqual({
        id: created.body.id,
        number: `Q${year}-0001`,
        status: "draft",
        total: 178.39,
        currency: "EUR",
        contact_id: contact.body.id
      })
      expect(emitted[1].data).toEqual({
        id: second.body.id,
        number: `Q${year}-0002`,
        status: "draft",
        total: 120.99,
        currency: "CZK",
        contact_id: null
      })
    }))

  it("refuses a zero-rate line without vat_reason, naming vat_reason, and accepts it with a reason", () =>
    onOneDay(SETTINGS.timezone, async (today) => {
      const { client } = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
      const refused = await client.post("/quotes", { items: [line(), line({ name: "Exempt", vat_rate: 0 })] })
      expect(refused.status).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
      expect(paths(refused)).toContain("vat_reason")
      const blank = await client.post("/quotes", { items: [line({ vat_rate: 0 })], vat_reason: null })
      expect(blank.status).toBe(422)
      expect(paths(blank)).toContain("vat_reason")
      expect((await client.get("/quotes")).body.data).toEqual([])

      const accepted = await client.post("/quotes", {
        items: [line(), line({ name: "Exempt", vat_rate: 0 })],
        vat_reason: "Exempt under §51"
      })
      expect(accepted.status).toBe(201)
      expect(accepted.body.vat_reason).toBe("Exempt under §51")
      expect(accepted.body.items[1]).toMatchObject({ vat_rate: 0, net: 99.99, vat: 0, gross: 99.99 })
      expect(accepted.body.total).toBe(220.98)
      // A refused create used no number.
      expect(accepted.body.number).toBe(`Q${today.slice(0, 4)}-0001`)
      expect(await events(client, "quote.created")).toHaveLength(1)

      // PATCH keeps the rule: dropping the reason while a zero-rate line remains is refused.
      const dropReason = await client.patch(`/quotes/${accepted.body.id}`, { vat_reason: null })
      expect(dropReason.status).toBe(422)
      expect(paths(dropReason)).toContain("vat_reason")
    }))

  it("PATCHes only a draft: omitted fields kept, items replace every line, unknown or no fields refused", async () => {
    const { client } = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
    const admin = server().admin
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const created = await client.post("/quotes", {
      contact_id: contact.body.id,
      valid_until: "2030-06-30",
      note: "first",
      items: [line(), line({ name: "Second", quantity: 1, unit_price: 100 })]
    })
    expect(created.status).toBe(201)
    const id = created.body.id

    const noted = await client.patch(`/quotes/${id}`, { note: "second" })
    expect(noted.status).toBe(200)
    expect(noted.body).toMatchObject({
      note: "second",
      contact_id: contact.body.id,
      valid_until: "2030-06-30",
      number: created.body.number,
      status: "draft",
      items: created.body.items,
      total: created.body.total
    })

    const replaced = await client.patch(`/quotes/${id}`, {
      items: [{ name: "Only", quantity: 2, unit_price: 50, vat_rate: 10 }]
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.items).toHaveLength(1)
    expect(replaced.body.items[0]).toMatchObject({ name: "Only", quantity: 2, net: 100, vat: 10, gross: 110 })
    expect(replaced.body).toMatchObject({
      subtotal: 100,
      vat_total: 10,
      total: 110,
      vat_summary: [{ vat_rate: 10, net: 100, vat: 10, gross: 110 }],
      note: "second",
      contact_id: contact.body.id,
      valid_until: "2030-06-30"
    })
    expect((await client.get(`/quotes/${id}`)).body).toEqual(replaced.body)

    const unknown = await client.patch(`/quotes/${id}`, { note: "x", colour: "red" })
    expect(unknown.status).toBe(422)
    expect(unknown.body.error).toBe("validation_failed")
    const empty = await client.patch(`/quotes/${id}`, {})
    expect(empty.status).toBe(422)
    expect(empty.body.error).toBe("no_fields_to_update")

    expect((await admin.post(`/quotes/${id}/send`)).status).toBe(200)
    const afterSend = await client.patch(`/quotes/${id}`, { note: "too late" })
    expect(afterSend.status).toBe(409)
    expect(afterSend.body.error).toBe("not_draft")
    expect((await client.get(`/quotes/${id}`)).body.note).toBe("second")
  })

  it("sends (freezing a revision per send), accepts, rejects and cancels through the admin API", async () => {
    const { client } = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
    const admin = server().admin
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const quote = await client.post("/quotes", { contact_id: contact.body.id, items: [line()] })
    const id = quote.body.id
    expect((await client.get(`/quotes/${id}/revisions`)).body).toEqual({ data: [] })

    const premature = await admin.post(`/quotes/${id}/accept`)
    expect(premature.status).toBe(409)
    expect(premature.body.error).toBe("transition_not_allowed")
    expect(premature.body.detail).toMatchObject({ from: "draft", to: "accepted" })
    expect((await admin.post(`/quotes/${id}/reject`)).body.error).toBe("transition_not_allowed")

    const sent = await admin.post(`/quotes/${id}/send`)
    expect(sent.status).toBe(200)
    expect(sent.body).toMatchObject({ id, status: "sent", revision: 1, number: quote.body.number })
    const first = await client.get(`/quotes/${id}/revisions`)
    expect(first.status).toBe(200)
    expect(first.body.data).toHaveLength(1)
    expect(Object.keys(first.body.data[0]).sort()).toEqual(["quote", "quote_id", "revision", "sent_at"])
    expect(first.body.data[0]).toMatchObject({ quote_id: id, revision: 1 })
    expect(first.body.data[0].sent_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(first.body.data[0].quote).toMatchObject({ id, status: "sent", revision: 1, total: 120.99 })

    const resent = await admin.post(`/quotes/${id}/send`)
    expect(resent.status).toBe(200)
    expect(resent.body.revision).toBe(2)
    const both = await client.get(`/quotes/${id}/revisions`)
    expect(both.body.data.map((r: any) => r.revision)).toEqual([1, 2])
    expect(both.body.data[0]).toEqual(first.body.data[0])
    expect(both.body.data[1].quote).toMatchObject({ id, status: "sent", revision: 2 })

    const accepted = await admin.post(`/quotes/${id}/accept`)
    expect(accepted.status).toBe(200)
    expect(accepted.body).toMatchObject({ id, status: "accepted" })
    expect((await client.get(`/quotes/${id}`)).body.status).toBe("accepted")
    const again = await admin.post(`/quotes/${id}/accept`)
    expect(again.status).toBe(409)
    expect(again.body.detail).toMatchObject({ from: "accepted", to: "accepted" })
    expect((await admin.post(`/quotes/${id}/cancel`)).status).toBe(409)
    expect((await admin.post(`/quotes/${id}/send`)).status).toBe(409)

    const other = await quoteIn(admin, client, "sent", { contact_id: contact.body.id })
    const rejected = await admin.post(`/quotes/${other.id}/reject`)
    expect(rejected.status).toBe(200)
    expect(rejected.body.status).toBe("rejected")
    expect((await admin.post(`/quotes/${other.id}/accept`)).status).toBe(409)

    const acceptedEvents = await events(client, "quote.accepted")
    expect(acceptedEvents).toHaveLength(1)
    expect(acceptedEvents[0].data).toEqual({
      id,
      number: quote.body.number,
      total: 120.99,
      contact_id: contact.body.id
    })
    const rejectedEvents = await events(client, "quote.rejected")
    expect(rejectedEvents).toHaveLength(1)
    expect(rejectedEvents[0].data).toEqual({
      id: other.id,
      number: other.number,
      total: other.total,
      contact_id: contact.body.id
    })

    const draft = await quoteIn(admin, client, "draft")
    const cancelledDraft = await admin.post(`/quotes/${draft.id}/cancel`)
    expect(cancelledDraft.status).toBe(200)
    expect(cancelledDraft.body.status).toBe("cancelled")
    const sentOne = await quoteIn(admin, client, "sent")
    const cancelledSent = await admin.post(`/quotes/${sentOne.id}/cancel`)
    expect(cancelledSent.status).toBe(200)
    expect(cancelledSent.body.status).toBe("cancelled")
    const sendCancelled = await admin.post(`/quotes/${sentOne.id}/send`)
    expect(sendCancelled.status).toBe(409)
    expect(sendCancelled.body.detail).toMatchObject({ from: "cancelled", to: "sent" })

    for (const action of ["send", "accept", "reject", "cancel"]) {
      const missing = await admin.post(`/quotes/${crypto.randomUUID()}/${action}`)
      expect(missing.status, action).toBe(404)
      expect(missing.body.error).toBe("not_found")
    }
    const notUuid = await admin.post("/quotes/not-a-uuid/send")
    expect(notUuid.status).toBe(404)
    expect((await client.get(`/quotes/${crypto.randomUUID()}/revisions`)).status).toBe(404)
  })

  it("turns an accepted quote into an invoice draft once", async () => {
    const { client, organisation } = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
    const admin = server().admin
    const contact = await client.post("/contacts", {
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com"
    })
    const company = await client.post("/companies", { name: "Acme", country: "CZ" })
    const quote = await quoteIn(admin, client, "accepted", {
      contact_id: contact.body.id,
      company_id: company.body.id,
      currency: "EUR",
      items: [line(), { name: "Travel", quantity: 1, unit_price: 10, vat_rate: 12, discount_percent: 5 }]
    })

    const invoiced = await client.post(`/quotes/${quote.id}/invoice`)
    expect(invoiced.status).toBe(201)
    expect(invoiced.body).toMatchObject({
      quote_id: quote.id,
      kind: "normal",
      status: "draft",
      currency: "EUR",
      contact_id: contact.body.id,
      company_id: company.body.id,
      items: quote.items,
      subtotal: quote.subtotal,
      vat_total: quote.vat_total,
      total: quote.total,
      paid_amount: 0
    })
    expect("number" in invoiced.body).toBe(false)
    expect((await client.get(`/invoices/${invoiced.body.id}`)).body).toEqual(invoiced.body)

    const again = await client.post(`/quotes/${quote.id}/invoice`)
    expect(again.status).toBe(409)
    expect(again.body.error).toBe("already_invoiced")
    expect(JSON.stringify(again.body.detail)).toContain(invoiced.body.id)
    expect((await client.get("/invoices")).body.data).toHaveLength(1)

    for (const status of ["sent", "draft", "rejected"] as const) {
      const notAccepted = await quoteIn(admin, client, status)
      const refused = await client.post(`/quotes/${notAccepted.id}/invoice`)
      expect(refused.status, status).toBe(409)
      expect(refused.body.error).toBe("transition_not_allowed")
      expect(refused.body.detail).toMatchObject({ from: status })
    }
    expect((await client.get("/invoices")).body.data).toHaveLength(1)
    expect((await client.post(`/quotes/${crypto.randomUUID()}/invoice`)).status).toBe(404)

    const key = await admin.post(`/organisations/${organisation.id}/keys`, {
      name: "quotes only",
      scopes: ["read", "write", "quotes:write"]
    })
    const quotesOnly = server().as(key.body.key)
    const withoutScope = await quotesOnly.post(`/quotes/${quote.id}/invoice`)
    expect(withoutScope.status).toBe(403)
    expect(withoutScope.body.error).toBe("missing_scope:invoices:write")
  })

  it("filters by status, contact and company, refuses unknown filter values, and keeps organisations apart", async () => {
    const { client } = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
    const admin = server().admin
    const ada = await client.post("/contacts", { first_name: "Ada" })
    const bob = await client.post("/contacts", { first_name: "Bob" })
    const acme = await client.post("/companies", { name: "Acme" })
    const draft = await quoteIn(admin, client, "draft", { contact_id: ada.body.id, company_id: acme.body.id })
    const sent = await quoteIn(admin, client, "sent", { contact_id: bob.body.id })
    const accepted = await quoteIn(admin, client, "accepted", { contact_id: ada.body.id })

    const ids = async (query: string) => {
      const page = await client.get(`/quotes${query}`)
      expect(page.status, query).toBe(200)
      return page.body.data.map((q: any) => q.id).sort()
    }
    expect(await ids("")).toEqual([draft.id, sent.id, accepted.id].sort())
    expect(await ids("?status=draft")).toEqual([draft.id])
    expect(await ids("?status=sent")).toEqual([sent.id])
    expect(await ids("?status=accepted")).toEqual([accepted.id])
    expect(await ids("?status=expired")).toEqual([])
    expect(await ids(`?contact_id=${ada.body.id}`)).toEqual([draft.id, accepted.id].sort())
    expect(await ids(`?company_id=${acme.body.id}`)).toEqual([draft.id])
    expect(await ids(`?contact_id=${ada.body.id}&status=accepted`)).toEqual([accepted.id])

    const bad = await client.get("/quotes?status=vip")
    expect(bad.status).toBe(422)
    expect(bad.body.error).toBe("validation_failed")

    const other = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
    expect((await other.client.get("/quotes")).body.data).toEqual([])
    for (const response of [
      await other.client.get(`/quotes/${draft.id}`),
      await other.client.patch(`/quotes/${draft.id}`, { note: "mine" }),
      await other.client.get(`/quotes/${sent.id}/revisions`),
      await other.client.post(`/quotes/${accepted.id}/invoice`)
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.error).toBe("not_found")
    }
    expect((await client.get(`/quotes/${draft.id}`)).body.note).toBeNull()
    expect((await client.get("/invoices")).body.data).toEqual([])
  })

  it("needs quotes:write to create or change a quote; read is enough to see them", async () => {
    const { client, organisation } = await server().tenant({ settings: SETTINGS, scopes: SCOPES })
    const quote = await client.post("/quotes", { items: [line()] })
    const plain = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      name: "crm only",
      scopes: ["read", "write"]
    })
    const crmOnly = server().as(plain.body.key)
    const create = await crmOnly.post("/quotes", { items: [line()] })
    expect(create.status).toBe(403)
    expect(create.body.error).toBe("missing_scope:quotes:write")
    const patch = await crmOnly.patch(`/quotes/${quote.body.id}`, { note: "x" })
    expect(patch.status).toBe(403)
    expect(patch.body.error).toBe("missing_scope:quotes:write")
    expect((await client.get(`/quotes/${quote.body.id}`)).body.note).toBeNull()
    expect((await client.get("/quotes")).body.data).toHaveLength(1)

    const readOnly = server().as(
      (await server().admin.post(`/organisations/${organisation.id}/keys`, { name: "ro", scopes: ["read"] })).body.key
    )
    expect((await readOnly.get("/quotes")).status).toBe(200)
    expect((await readOnly.get(`/quotes/${quote.body.id}`)).status).toBe(200)
    expect((await readOnly.get(`/quotes/${quote.body.id}/revisions`)).status).toBe(200)
  })
})
