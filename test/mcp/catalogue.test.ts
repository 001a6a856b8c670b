/**
 * The catalogue tools of the assistant interface (record types and records, quotes, invoices,
 * products, orders, tickets, purchase orders), called with the SDK's own client over Streamable
 * HTTP against the real server on every store: each filter, `limit` and `has_more`, the rules of
 * `create_record`, an unknown filter value and a read-only key.
 */
import { Access, PurchaseOrders, Tickets } from "@crm/core"
import type { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { callTool, mcpClient } from "../support/mcp.js"
import type { Client, TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const SETTINGS = {
  record_types: [
    {
      key: "project",
      name: "Project",
      fields: [
        { key: "budget", type: "number" },
        { key: "tags", type: "multiselect", options: ["red", "green"] },
        { key: "double", type: "formula", expression: "budget * 2" },
        { key: "sheets", type: "relation", target: "timesheet" },
        { key: "hours", type: "rollup", rollup: { relation: "sheets", field: "hours", aggregate: "sum" } }
      ]
    },
    { key: "timesheet", name: "Timesheet", fields: [{ key: "hours", type: "number" }] }
  ]
}

const SCOPES = ["read", "write", "quotes:write", "invoices:write"]

const LINE = { name: "Consulting", quantity: 1, unit_price: 100, vat_rate: 21 }

const created = async (response: Promise<{ status: number; body: any; text: string }>) => {
  const answer = await response
  if (answer.status >= 300) throw new Error(`setup failed: ${answer.status} ${answer.text}`)
  return answer.body
}

interface Fixture {
  readonly mcp: McpClient
  readonly readOnly: McpClient
  readonly rest: Client
  readonly ids: Record<string, string>
}

const ids = (result: { value: any }): Array<string> => result.value.items.map((item: any) => item.id).sort()
const sorted = (...values: ReadonlyArray<string>) => [...values].sort()

const setUp = async (server: TestServer): Promise<Fixture> => {
  const tenant = await server.tenant({ scopes: SCOPES, settings: SETTINGS })
  const readOnlyKey = await server.admin.post(`/organisations/${tenant.organisation.id}/keys`, {
    name: "read only",
    scopes: ["read"]
  })
  const rest = tenant.client
  const alice = await created(rest.post("/contacts", { first_name: "Alice", email: "alice@example.com" }))
  const bob = await created(rest.post("/contacts", { first_name: "Bob", email: "bob@example.com" }))
  const acme = await created(rest.post("/companies", { name: "Acme" }))
  const deal = await created(rest.post("/deals", { title: "Big deal", contact_id: alice.id }))

  // Records: two projects (one linked to Alice, Acme and the deal) and a timesheet.
  const sheet = await created(rest.post("/records", { type: "timesheet", title: "Week 1", custom: { hours: 5 } }))
  const website = await created(
    rest.post("/records", {
      type: "project",
      title: "Website relaunch",
      contact_id: alice.id,
      company_id: acme.id,
      deal_id: deal.id,
      custom: { budget: 10, sheets: [sheet.id] }
    })
  )
  const app = await created(rest.post("/records", { type: "project", title: "Mobile app", contact_id: bob.id }))

  // Quotes: a draft for Alice with Acme, a sent one for Bob.
  const draftQuote = await created(rest.post("/quotes", { contact_id: alice.id, company_id: acme.id, items: [LINE] }))
  const sentQuote = await created(rest.post("/quotes", { contact_id: bob.id, items: [LINE] }))
  await created(server.admin.post(`/quotes/${sentQuote.id}/send`))

  // Invoices: a normal draft for Alice, an issued one for Bob, a proforma for Acme.
  const draftInvoice = await created(rest.post("/invoices", { contact_id: alice.id, items: [LINE] }))
  const issuedInvoice = await created(rest.post("/invoices", { contact_id: bob.id, items: [LINE] }))
  await created(rest.post(`/invoices/${issuedInvoice.id}/issue`, {}))
  const proforma = await created(rest.post("/invoices", { kind: "proforma", company_id: acme.id, items: [LINE] }))

  // Products: untracked, out of stock, low and ok; one inactive service.
  const untracked = await created(
    rest.post("/products", { sku: "SRV", name: "Setup", kind: "service", active: false, category: "services" })
  )
  const out = await created(rest.post("/products", { sku: "OUT", name: "Gone", category: "parts" }))
  await created(rest.post(`/products/${out.id}/stock`, { count: 0 }))
  const low = await created(
    rest.post("/products", { sku: "LOW", name: "Few", low_stock_threshold: 5, category: "parts" })
  )
  await created(rest.post(`/products/${low.id}/stock`, { count: 3 }))
  const ok = await created(rest.post("/products", { sku: "OK", name: "Plenty", low_stock_threshold: 5 }))
  await created(rest.post(`/products/${ok.id}/stock`, { count: 50 }))

  // Orders: a new unpaid order for Alice, a paid and confirmed one for Bob.
  const orderLine = { name: "Widget", quantity: 1, unit_price: 10, vat_rate: 21 }
  const newOrder = await created(
    rest.post("/orders", { external_id: "shop-1", contact_id: alice.id, payment_status: "none", items: [orderLine] })
  )
  const paidOrder = await created(
    rest.post("/orders", {
      external_id: "shop-2",
      contact_id: bob.id,
      payment_method: "card",
      payment_status: "paid",
      items: [orderLine]
    })
  )
  await created(rest.patch(`/orders/${paidOrder.id}`, { fulfilment: "confirmed" }))

  // Tickets and purchase orders have no REST create: the kernel's own operations.
  const kernel = await server.run(
    Effect.gen(function* () {
      const organisation = yield* (yield* Access.Access).getOrganisation(tenant.organisation.id)
      const tickets = yield* Tickets.Tickets
      const breached = yield* tickets.create(organisation, {
        subject: "Late answer",
        contact_id: alice.id,
        channel: "email",
        sla_due_at: "2020-01-01T00:00:00.000Z"
      })
      const pending = yield* tickets.create(organisation, {
        subject: "Question",
        requester_email: "someone@example.com",
        channel: "chat",
        status: "pending",
        sla_due_at: null
      })
      const solved = yield* tickets.create(organisation, {
        subject: "Done",
        contact_id: bob.id,
        channel: "portal",
        status: "solved",
        sla_due_at: "2020-01-01T00:00:00.000Z"
      })
      const orders = yield* PurchaseOrders.PurchaseOrders
      const draftPo = yield* orders.create(organisation, {
        supplier: "Parts Ltd",
        items: [{ name: "Bolt", quantity: 10 }]
      })
      const orderedPo = yield* orders.create(organisation, {
        supplier: "Nuts Ltd",
        items: [{ name: "Nut", quantity: 5 }]
      })
      yield* orders.order(organisation, orderedPo.id)
      return {
        breached: breached.id,
        pending: pending.id,
        solved: solved.id,
        draftPo: draftPo.id,
        orderedPo: orderedPo.id
      }
    })
  )

  return {
    mcp: await mcpClient(server, tenant.key),
    readOnly: await mcpClient(server, readOnlyKey.body.key),
    rest,
    ids: {
      alice: alice.id,
      bob: bob.id,
      acme: acme.id,
      deal: deal.id,
      sheet: sheet.id,
      website: website.id,
      app: app.id,
      draftQuote: draftQuote.id,
      sentQuote: sentQuote.id,
      draftInvoice: draftInvoice.id,
      issuedInvoice: issuedInvoice.id,
      proforma: proforma.id,
      untracked: untracked.id,
      out: out.id,
      low: low.id,
      ok: ok.id,
      newOrder: newOrder.id,
      paidOrder: paidOrder.id,
      ...kernel
    }
  }
}

onEveryStore("MCP catalogue tools", (server) => {
  let fixture: Fixture
  beforeAll(async () => {
    fixture = await setUp(server())
  })
  afterAll(async () => {
    await fixture?.mcp.close().catch(() => undefined)
    await fixture?.readOnly.close().catch(() => undefined)
  })
  const call = (name: string, args: Record<string, unknown> = {}) => callTool(fixture.mcp, name, args)

  it("lists every catalogue tool with truthful hints", async () => {
    const { tools } = await fixture.mcp.listTools()
    const byName = new Map(tools.map((entry) => [entry.name, entry]))
    for (const name of [
      "list_record_types",
      "list_records",
      "list_quotes",
      "list_invoices",
      "list_products",
      "list_orders",
      "list_tickets",
      "list_purchase_orders"
    ]) {
      expect(byName.get(name)?.annotations).toMatchObject({ readOnlyHint: true })
    }
    expect(byName.get("create_record")?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false })
    // Booleans are JSON booleans for an assistant, not the query string's "true".
    expect((byName.get("list_tickets")!.inputSchema.properties as any).breached.type).toBe("boolean")
    expect((byName.get("list_products")!.inputSchema.properties as any).active.type).toBe("boolean")
  })

  it("list_record_types: the types with their fields, options and what can be set", async () => {
    const result = await call("list_record_types")
    expect(result.isError).toBe(false)
    expect(result.value.has_more).toBe(false)
    const project = result.value.items.find((type: any) => type.key === "project")
    expect(project.name).toBe("Project")
    const fields = Object.fromEntries(project.fields.map((field: any) => [field.key, field]))
    expect(fields.tags).toMatchObject({ type: "multiselect", options: ["red", "green"], settable: true })
    expect(fields.double).toMatchObject({ type: "formula", settable: false })
    expect(fields.hours).toMatchObject({ type: "rollup", settable: false })
    const limited = await call("list_record_types", { limit: 1 })
    expect(limited.value.items).toHaveLength(1)
    expect(limited.value.has_more).toBe(true)
  })

  it("list_records: by type, title fragment, contact, company and deal", async () => {
    const { ids: id } = fixture
    expect(ids(await call("list_records"))).toEqual(sorted(id.sheet!, id.website!, id.app!))
    expect(ids(await call("list_records", { type: "project" }))).toEqual(sorted(id.website!, id.app!))
    expect(ids(await call("list_records", { q: "RELAUNCH" }))).toEqual([id.website])
    expect(ids(await call("list_records", { contact_id: id.bob }))).toEqual([id.app])
    expect(ids(await call("list_records", { company_id: id.acme }))).toEqual([id.website])
    expect(ids(await call("list_records", { deal_id: id.deal }))).toEqual([id.website])
    const website = (await call("list_records", { q: "Website" })).value.items[0]
    expect(website.custom).toMatchObject({ budget: 10, double: 20, hours: 5 })
    const page = await call("list_records", { limit: 2 })
    expect(page.value.items).toHaveLength(2)
    expect(page.value.has_more).toBe(true)
    const next = await call("list_records", { limit: 2, offset: 2 })
    expect(next.value.items).toHaveLength(1)
    expect(next.value.has_more).toBe(false)
    const unknown = await call("list_records", { type: "spaceship" })
    expect(unknown.isError).toBe(true)
    expect(unknown.value.error).toBe("validation_failed")
  })

  it("create_record: stores defined keys, lists ignored ones, emits record.created", async () => {
    const result = await call("create_record", {
      type: "project",
      title: "Assistant project",
      contact_id: fixture.ids.alice,
      custom: { budget: 7, tags: ["red"], colour: "blue" }
    })
    expect(result.isError).toBe(false)
    expect(result.value).toMatchObject({
      type_key: "project",
      title: "Assistant project",
      contact_id: fixture.ids.alice,
      custom: { budget: 7, tags: ["red"], double: 14 },
      ignored_fields: ["colour"]
    })
    expect(result.value.custom).not.toHaveProperty("colour")
    const stored = await fixture.rest.get(`/records/${result.value.id}`)
    expect(stored.status).toBe(200)
    const events = await fixture.rest.get("/events?since=0&event=record.created&limit=200")
    expect(events.body.data.map((event: any) => event.data.id)).toContain(result.value.id)
  })

  it("create_record: refuses a multiselect value outside the options, a formula or rollup value and an unknown type", async () => {
    const option = await call("create_record", { type: "project", custom: { tags: ["purple"] } })
    expect(option.isError).toBe(true)
    expect(option.value.error).toBe("validation_failed")
    expect(option.value.detail.map((issue: any) => issue.path)).toContain("custom.tags")
    const formula = await call("create_record", { type: "project", custom: { double: 3 } })
    expect(formula.value.error).toBe("validation_failed")
    expect(formula.value.detail.map((issue: any) => issue.path)).toContain("custom.double")
    const rollup = await call("create_record", { type: "project", custom: { hours: 3 } })
    expect(rollup.value.error).toBe("validation_failed")
    expect(rollup.value.detail.map((issue: any) => issue.path)).toContain("custom.hours")
    const type = await call("create_record", { type: "spaceship", custom: {} })
    expect(type.value.error).toBe("validation_failed")
    expect(type.value.detail.map((issue: any) => issue.path)).toEqual(["type"])
  })

  it("create_record with a read-only key answers missing_scope:write", async () => {
    const result = await callTool(fixture.readOnly, "create_record", { type: "project", custom: {} })
    expect(result.isError).toBe(true)
    expect(result.value.error).toBe("missing_scope:write")
    // Reading still works with that key.
    expect((await callTool(fixture.readOnly, "list_quotes")).isError).toBe(false)
  })

  it("list_quotes: by status, contact and company", async () => {
    const { ids: id } = fixture
    expect(ids(await call("list_quotes"))).toEqual(sorted(id.draftQuote!, id.sentQuote!))
    expect(ids(await call("list_quotes", { status: "sent" }))).toEqual([id.sentQuote])
    expect(ids(await call("list_quotes", { status: "accepted" }))).toEqual([])
    expect(ids(await call("list_quotes", { contact_id: id.alice }))).toEqual([id.draftQuote])
    expect(ids(await call("list_quotes", { company_id: id.acme }))).toEqual([id.draftQuote])
    const quote = (await call("list_quotes", { status: "draft" })).value.items[0]
    expect(quote).toMatchObject({ status: "draft", total: 121 })
  })

  it("list_invoices: by status, kind, contact and company", async () => {
    const { ids: id } = fixture
    expect(ids(await call("list_invoices"))).toEqual(sorted(id.draftInvoice!, id.issuedInvoice!, id.proforma!))
    expect(ids(await call("list_invoices", { status: "issued" }))).toEqual([id.issuedInvoice])
    expect(ids(await call("list_invoices", { status: "draft" }))).toEqual(sorted(id.draftInvoice!, id.proforma!))
    expect(ids(await call("list_invoices", { kind: "proforma" }))).toEqual([id.proforma])
    expect(ids(await call("list_invoices", { contact_id: id.bob }))).toEqual([id.issuedInvoice])
    expect(ids(await call("list_invoices", { company_id: id.acme }))).toEqual([id.proforma])
  })

  it("list_products: by stock band, active, category and kind", async () => {
    const { ids: id } = fixture
    expect(ids(await call("list_products"))).toEqual(sorted(id.untracked!, id.out!, id.low!, id.ok!))
    expect(ids(await call("list_products", { stock: "untracked" }))).toEqual([id.untracked])
    expect(ids(await call("list_products", { stock: "out" }))).toEqual([id.out])
    expect(ids(await call("list_products", { stock: "low" }))).toEqual([id.low])
    expect(ids(await call("list_products", { stock: "ok" }))).toEqual([id.ok])
    expect(ids(await call("list_products", { active: false }))).toEqual([id.untracked])
    expect(ids(await call("list_products", { active: true }))).toEqual(sorted(id.out!, id.low!, id.ok!))
    expect(ids(await call("list_products", { category: "parts" }))).toEqual(sorted(id.out!, id.low!))
    expect(ids(await call("list_products", { kind: "service" }))).toEqual([id.untracked])
    const low = (await call("list_products", { stock: "low" })).value.items[0]
    expect(low).toMatchObject({ sku: "LOW", stock: 3 })
  })

  it("list_orders: by fulfilment, payment status and contact", async () => {
    const { ids: id } = fixture
    expect(ids(await call("list_orders"))).toEqual(sorted(id.newOrder!, id.paidOrder!))
    expect(ids(await call("list_orders", { fulfilment: "confirmed" }))).toEqual([id.paidOrder])
    expect(ids(await call("list_orders", { fulfilment: "new" }))).toEqual([id.newOrder])
    expect(ids(await call("list_orders", { payment_status: "paid" }))).toEqual([id.paidOrder])
    expect(ids(await call("list_orders", { payment_status: "none" }))).toEqual([id.newOrder])
    expect(ids(await call("list_orders", { contact_id: id.alice }))).toEqual([id.newOrder])
  })

  it("list_tickets: by breached, status, channel and contact", async () => {
    const { ids: id } = fixture
    expect(ids(await call("list_tickets"))).toEqual(sorted(id.breached!, id.pending!, id.solved!))
    expect(ids(await call("list_tickets", { breached: true }))).toEqual([id.breached])
    expect(ids(await call("list_tickets", { breached: false }))).toEqual(sorted(id.pending!, id.solved!))
    expect(ids(await call("list_tickets", { status: "pending" }))).toEqual([id.pending])
    expect(ids(await call("list_tickets", { status: "closed" }))).toEqual([])
    expect(ids(await call("list_tickets", { channel: "portal" }))).toEqual([id.solved])
    expect(ids(await call("list_tickets", { contact_id: id.alice }))).toEqual([id.breached])
    const breached = (await call("list_tickets", { breached: true })).value.items[0]
    expect(breached).toMatchObject({ subject: "Late answer", status: "open", channel: "email", breached: true })
  })

  it("list_purchase_orders: by status", async () => {
    const { ids: id } = fixture
    expect(ids(await call("list_purchase_orders"))).toEqual(sorted(id.draftPo!, id.orderedPo!))
    expect(ids(await call("list_purchase_orders", { status: "ordered" }))).toEqual([id.orderedPo])
    expect(ids(await call("list_purchase_orders", { status: "draft" }))).toEqual([id.draftPo])
    expect(ids(await call("list_purchase_orders", { status: "received" }))).toEqual([])
  })

  it("refuses an unknown filter value with validation_failed naming the field", async () => {
    for (const [name, args, path] of [
      ["list_tickets", { status: "vip" }, "status"],
      ["list_tickets", { breached: "true" }, "breached"],
      ["list_products", { stock: "plenty" }, "stock"],
      ["list_orders", { fulfilment: "lost" }, "fulfilment"],
      ["list_invoices", { kind: "storno2" }, "kind"],
      ["list_quotes", { status: "won" }, "status"],
      ["list_purchase_orders", { status: "open" }, "status"]
    ] as const) {
      const result = await call(name, args)
      expect(result.isError, name).toBe(true)
      expect(result.value.error).toBe("validation_failed")
      expect(result.value.detail.map((issue: any) => issue.path)).toContain(path)
    }
  })

  it("clamps limit at 200", async () => {
    const result = await call("list_products", { limit: 1000 })
    expect(result.isError).toBe(false)
    expect(result.value.items).toHaveLength(4)
  })
})
