/**
 * Orders over HTTP, written from the contract (Order fields, the fulfilment table, orders
 * endpoints, webshop.order and order.paid) and the decisions page (OrderPatch, orders from
 * connected webshops, transition_not_allowed), with stock through the products' ledger and the
 * buyer's shipping mail in the admin outbox.
 */
import { describe, expect, it } from "vitest"
import { newestFirst } from "../support/answers.js"
import { checkedFetch } from "../support/responseCheck.js"
import type { Client, TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

type Fulfilment = "new" | "confirmed" | "shipped" | "delivered" | "cancelled"

const STATES: ReadonlyArray<Fulfilment> = ["new", "confirmed", "shipped", "delivered", "cancelled"]
const TABLE: ReadonlyArray<readonly [Fulfilment, Fulfilment]> = [
  ["new", "confirmed"],
  ["new", "cancelled"],
  ["confirmed", "shipped"],
  ["confirmed", "cancelled"],
  ["shipped", "delivered"]
]
/** How an order gets to each state from new, through the table. */
const PATH: Record<Fulfilment, ReadonlyArray<Fulfilment>> = {
  new: [],
  confirmed: ["confirmed"],
  shipped: ["confirmed", "shipped"],
  delivered: ["confirmed", "shipped", "delivered"],
  cancelled: ["cancelled"]
}

const TRACKING = "https://track.example.com/parcel/123"
/** 2 × 10 net at 21 %: net 20, VAT 4.2, gross 24.2. */
const MUG = { name: "Mug", quantity: 2, unit_price: 10, vat_rate: 21 }

const ORDER_KEYS = [
  "contact_id",
  "created_at",
  "currency",
  "deal_id",
  "external_id",
  "fulfilment",
  "id",
  "items",
  "order_number",
  "payment_method",
  "payment_status",
  "subtotal",
  "total",
  "tracking_url",
  "updated_at",
  "vat_summary",
  "vat_total"
]

const tenant = (server: () => TestServer) =>
  server().tenant({ settings: { default_currency: "EUR" } }) as Promise<{
    organisation: any
    client: Client
  }>

const newContact = async (client: Client, email: string | null = null) => {
  const created = await client.post("/contacts", { first_name: "Ada", last_name: "Lovelace", email })
  expect(created.status, created.text).toBe(201)
  return created.body
}

const place = async (client: Client, body: Record<string, unknown>) => {
  const created = await client.post("/orders", { external_id: crypto.randomUUID(), items: [MUG], ...body })
  expect(created.status, created.text).toBe(201)
  return created.body
}

/** Moves an order along the table; shipping carries a tracking link. */
const walk = async (client: Client, id: string, steps: ReadonlyArray<Fulfilment>) => {
  for (const step of steps) {
    const moved = await client.patch(`/orders/${id}`, {
      fulfilment: step,
      ...(step === "shipped" ? { tracking_url: TRACKING } : {})
    })
    expect(moved.status, moved.text).toBe(200)
    expect(moved.body.fulfilment).toBe(step)
  }
}

const events = async (client: Client, name: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0&event=${name}&limit=500`)
  expect(page.status).toBe(200)
  return page.body.data
}

const outbox = async (server: () => TestServer, organisationId: string): Promise<Array<any>> => {
  const page = await server().admin.get(`/organisations/${organisationId}/mail`)
  expect(page.status, page.text).toBe(200)
  return page.body.data
}

const product = async (client: Client, count: number | null) => {
  const created = await client.post("/products", { sku: crypto.randomUUID().slice(0, 12), name: "Mug", unit_price: 10 })
  expect(created.status, created.text).toBe(201)
  if (count !== null) {
    const counted = await client.post(`/products/${created.body.id}/stock`, { count })
    expect(counted.status, counted.text).toBe(200)
  }
  return created.body
}

const stockOf = async (client: Client, id: string) => {
  const found = await client.get(`/products/${id}`)
  expect(found.status).toBe(200)
  return found.body.stock
}

const movements = async (client: Client, id: string): Promise<Array<any>> => {
  const page = await client.get(`/products/${id}/stock-movements?limit=200`)
  expect(page.status, page.text).toBe(200)
  return page.body.data
}

onEveryStore("orders", (server) => {
  describe("POST /orders", () => {
    it("records an order for a contact: priced lines, a number from the order series, fulfilment new", async () => {
      const { client } = await tenant(server)
      const buyer = await newContact(client, "ada@example.com")
      const order = await place(client, {
        contact_id: buyer.id,
        payment_method: "card",
        payment_status: "paid",
        items: [MUG, { name: "Shipping", quantity: 1, unit_price: 4.99, vat_rate: 0 }]
      })
      expect(Object.keys(order).sort()).toEqual(ORDER_KEYS)
      expect(order).toMatchObject({
        fulfilment: "new",
        payment_status: "paid",
        payment_method: "card",
        currency: "EUR",
        contact_id: buyer.id,
        deal_id: null,
        tracking_url: null,
        subtotal: 24.99,
        vat_total: 4.2,
        total: 29.19
      })
      expect(order.order_number).toMatch(/^ORD\d{4}-000001$/)
      expect(order.items[0]).toEqual({
        product_id: null,
        variant_id: null,
        name: "Mug",
        quantity: 2,
        unit_price: 10,
        vat_rate: 21,
        net: 20,
        vat: 4.2,
        gross: 24.2,
        stock_taken: false
      })
      const second = await place(client, { contact_id: buyer.id })
      expect(second.order_number).toMatch(/^ORD\d{4}-000002$/)
      expect((await client.get(`/orders/${order.id}`)).body).toEqual(order)
    })

    it("emits webshop.order with exactly the catalogue's keys (and order.paid for an order that arrives paid)", async () => {
      const { client } = await tenant(server)
      const buyer = await newContact(client, "grace@example.com")
      const deal = await client.post("/deals", { title: "Shop", contact_id: buyer.id })
      const order = await place(client, {
        contact_id: buyer.id,
        deal_id: deal.body.id,
        currency: "CZK",
        payment_method: "transfer",
        payment_status: "paid"
      })
      const [webshop] = await events(client, "webshop.order")
      expect(webshop.data).toEqual({
        order_id: order.id,
        external_id: order.external_id,
        contact_id: buyer.id,
        deal_id: deal.body.id,
        total: 24.2,
        currency: "CZK"
      })
      const [paid] = await events(client, "order.paid")
      expect(paid.data).toEqual({
        id: order.id,
        order_number: order.order_number,
        amount: 24.2,
        currency: "CZK",
        provider: "transfer"
      })
      await place(client, { contact_id: buyer.id, payment_status: "pending", payment_method: "card" })
      expect(await events(client, "webshop.order")).toHaveLength(2)
      expect(await events(client, "order.paid")).toHaveLength(1)
    })

    it("finds the buyer by email (case-insensitive) or creates the contact once, with contact.created", async () => {
      const { client } = await tenant(server)
      const first = await place(client, { buyer: { email: "Linus@Example.com", first_name: "Linus" } })
      const second = await place(client, { buyer: { email: "linus@example.COM" } })
      expect(second.contact_id).toBe(first.contact_id)
      const contact = await client.get(`/contacts/${first.contact_id}`)
      expect(contact.body).toMatchObject({ email: "linus@example.com", first_name: "Linus", last_name: null })
      const created = await events(client, "contact.created")
      expect(created.map((event) => event.data.id)).toEqual([first.contact_id])

      const known = await newContact(client, "known@example.com")
      const third = await place(client, { buyer: { email: "KNOWN@example.com", first_name: "Someone else" } })
      expect(third.contact_id).toBe(known.id)
      expect(await events(client, "contact.created")).toHaveLength(2)
    })

    it("creates the buyer under the contacts rules: a plan at its contact limit refuses the order", async () => {
      const { client } = await server().tenant({ settings: { plan: { max_contacts: 0 } } })
      const refused = await client.post("/orders", {
        external_id: "limit-1",
        buyer: { email: "over@example.com" },
        items: [MUG]
      })
      expect(refused.status).toBe(403)
      expect(refused.body).toMatchObject({ error: "plan_refused", detail: "MAX_CONTACTS" })
      expect((await client.get("/orders")).body.data).toEqual([])
    })

    it("gives concurrent orders of one new buyer the same contact, created once", async () => {
      const { client } = await tenant(server)
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          client.post("/orders", {
            external_id: crypto.randomUUID(),
            buyer: { email: "rush@example.com" },
            items: [MUG]
          })
        )
      )
      expect(results.map((r) => r.status)).toEqual(results.map(() => 201))
      expect(new Set(results.map((r) => r.body.contact_id)).size).toBe(1)
      expect(await events(client, "contact.created")).toHaveLength(1)
      expect(new Set(results.map((r) => r.body.order_number)).size).toBe(6)
    })

    it("lets exactly one of concurrent repeats of an external_id through; the others name it", async () => {
      const { client } = await tenant(server)
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          client.post("/orders", { external_id: "dup-7", buyer: { email: `dup${i}@example.com` }, items: [MUG] })
        )
      )
      const winners = results.filter((r) => r.status === 201)
      expect(winners).toHaveLength(1)
      for (const loser of results.filter((r) => r.status !== 201)) {
        expect(loser.status).toBe(409)
        expect(loser.body).toMatchObject({ error: "order_already_exists", detail: { id: winners[0]!.body.id } })
      }
      expect(await events(client, "contact.created")).toHaveLength(1)
      expect(await events(client, "webshop.order")).toHaveLength(1)
    })

    it("refuses a repeated external_id with 409 order_already_exists naming the existing order, and writes nothing", async () => {
      const { client } = await tenant(server)
      const first = await place(client, { external_id: "shop-1001", buyer: { email: "a@example.com" } })
      const again = await client.post("/orders", {
        external_id: "shop-1001",
        buyer: { email: "someone-new@example.com" },
        items: [MUG]
      })
      expect(again.status).toBe(409)
      expect(again.body.error).toBe("order_already_exists")
      expect(again.body.detail).toMatchObject({ id: first.id })
      expect((await client.get("/orders")).body.data).toHaveLength(1)
      expect((await client.get("/contacts?email=someone-new@example.com")).body.data).toEqual([])
      expect(await events(client, "webshop.order")).toHaveLength(1)
      // Another organisation has its own external ids.
      const other = await tenant(server)
      await place(other.client, { external_id: "shop-1001", buyer: { email: "a@example.com" } })
    })

    it("answers a webshop's retry of an order that took the last stock with order_already_exists, not a stock error", async () => {
      const { client } = await tenant(server)
      const last = await product(client, 2)
      const body = {
        external_id: "shop-retry-1",
        buyer: { email: "retry@example.com" },
        items: [{ ...MUG, product_id: last.id, quantity: 2 }]
      }
      const first = await place(client, body)
      expect(first.items[0].stock_taken).toBe(true)
      expect((await client.get(`/orders/${first.id}`)).body.items[0].stock_taken).toBe(true)
      const again = await client.post("/orders", body)
      expect(again.status, again.text).toBe(409)
      expect(again.body).toMatchObject({ error: "order_already_exists", detail: { id: first.id } })
      expect(await stockOf(client, last.id)).toBe(0)
      expect(await movements(client, last.id)).toHaveLength(2)
    })

    it("validates the buyer, the links and the lines", async () => {
      const { client } = await tenant(server)
      const other = await tenant(server)
      const stranger = await newContact(other.client, "stranger@example.com")
      const buyer = await newContact(client, "b@example.com")
      const refused = async (body: Record<string, unknown>, path: string) => {
        const response = await client.post("/orders", { external_id: crypto.randomUUID(), items: [MUG], ...body })
        expect(response.status, response.text).toBe(422)
        expect(response.body.error).toBe("validation_failed")
        expect(response.body.detail.map((issue: any) => issue.path)).toContain(path)
      }
      await refused({ contact_id: stranger.id }, "contact_id")
      await refused({ contact_id: crypto.randomUUID() }, "contact_id")
      await refused({}, "contact_id")
      await refused({ contact_id: buyer.id, buyer: { email: "b@example.com" } }, "contact_id")
      await refused({ buyer: { email: "not an address" } }, "buyer.email")
      await refused({ contact_id: buyer.id, deal_id: crypto.randomUUID() }, "deal_id")
      await refused({ contact_id: buyer.id, items: [] }, "items")
      await refused({ contact_id: buyer.id, items: [{ ...MUG, quantity: 0 }] }, "items.0.quantity")
      await refused({ contact_id: buyer.id, payment_status: "refunded" }, "payment_status")
      await refused({ contact_id: buyer.id, payment_method: "cash" }, "payment_method")
      await refused(
        { contact_id: buyer.id, items: [MUG, { ...MUG, product_id: crypto.randomUUID() }] },
        "items.1.product_id"
      )
      await refused(
        { contact_id: buyer.id, items: [{ ...MUG, product_id: crypto.randomUUID(), quantity: 1.5 }] },
        "items.0.quantity"
      )
      await refused(
        { contact_id: buyer.id, items: [{ ...MUG, variant_id: crypto.randomUUID() }] },
        "items.0.variant_id"
      )
      await refused({ contact_id: buyer.id, colour: "red" }, "colour")
      expect((await client.get("/orders")).body.data).toEqual([])
      expect(await events(client, "webshop.order")).toEqual([])
    })
  })

  describe("stock through the ledger", () => {
    it("takes tracked stock on the sale and gives it back on cancel, each in the ledger with the order", async () => {
      const { client } = await tenant(server)
      const tracked = await product(client, 5)
      const untracked = await product(client, null)
      const order = await place(client, {
        buyer: { email: "stock@example.com" },
        items: [
          { ...MUG, product_id: tracked.id, quantity: 2 },
          { ...MUG, product_id: untracked.id, quantity: 7 },
          { ...MUG, name: "Gift wrap" }
        ]
      })
      expect(order.items.map((line: any) => line.stock_taken)).toEqual([true, false, false])
      expect(await stockOf(client, tracked.id)).toBe(3)
      expect(await stockOf(client, untracked.id)).toBeNull()
      const [sale] = await movements(client, tracked.id)
      expect(sale).toMatchObject({ kind: "sale", quantity: -2, level: 3, order_id: order.id })
      expect(await movements(client, untracked.id)).toEqual([])

      await walk(client, order.id, ["confirmed", "cancelled"])
      expect(await stockOf(client, tracked.id)).toBe(5)
      const [back] = await movements(client, tracked.id)
      expect(back).toMatchObject({ kind: "cancel", quantity: 2, level: 5, order_id: order.id })
      expect(await movements(client, untracked.id)).toEqual([])
    })

    it("lets concurrent orders take exactly the stock there is, never below zero, level = Σ ledger", async () => {
      const { client } = await tenant(server)
      const scarce = await product(client, 5)
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          client.post("/orders", {
            external_id: `race-${i}`,
            buyer: { email: "race@example.com" },
            items: [{ ...MUG, product_id: scarce.id, quantity: 1 }]
          })
        )
      )
      expect(results.filter((r) => r.status === 201)).toHaveLength(5)
      for (const loser of results.filter((r) => r.status !== 201)) {
        expect(loser.status, loser.text).toBe(409)
        expect(loser.body.error).toBe("insufficient_stock")
      }
      expect(await stockOf(client, scarce.id)).toBe(0)
      const ledger = await movements(client, scarce.id)
      expect(ledger.filter((row) => row.kind === "sale")).toHaveLength(5)
      expect(ledger.reduce((sum, row) => sum + row.quantity, 0)).toBe(0)
      expect((await client.get("/orders")).body.data).toHaveLength(5)
    })

    it("still cancels an order whose variant was removed from the product since the sale", async () => {
      const { client } = await tenant(server)
      const shirt = await client.post("/products", {
        sku: "SHIRT-1",
        name: "Shirt",
        options: [{ name: "size", values: ["S", "M"] }],
        variants: [{ options: { size: "S" } }, { options: { size: "M" } }]
      })
      expect(shirt.status, shirt.text).toBe(201)
      const [small, medium] = shirt.body.variants
      await client.post(`/products/${shirt.body.id}/stock`, { count: 1, variant_id: small.id })
      await client.post(`/products/${shirt.body.id}/stock`, { count: 4, variant_id: medium.id })
      const order = await place(client, {
        buyer: { email: "gone@example.com" },
        items: [
          { ...MUG, product_id: shirt.body.id, variant_id: small.id, quantity: 1 },
          { ...MUG, product_id: shirt.body.id, variant_id: medium.id, quantity: 1 }
        ]
      })
      // The small size sold out and is dropped from the range (it holds nothing, so that is allowed).
      const dropped = await client.patch(`/products/${shirt.body.id}`, {
        variants: [{ id: medium.id, options: { size: "M" } }]
      })
      expect(dropped.status, dropped.text).toBe(200)
      const cancelled = await client.patch(`/orders/${order.id}`, { fulfilment: "cancelled" })
      expect(cancelled.status, cancelled.text).toBe(200)
      expect(cancelled.body.fulfilment).toBe("cancelled")
      // What can go back does.
      expect(await stockOf(client, shirt.body.id)).toBe(4)
    })

    it("takes a product and buyer named by an upper-case id as the same records, and gives the stock back on cancel", async () => {
      const { client } = await tenant(server)
      const tracked = await product(client, 5)
      const buyer = await newContact(client, "upper@example.com")
      const order = await place(client, {
        contact_id: buyer.id.toUpperCase(),
        items: [{ ...MUG, product_id: tracked.id.toUpperCase(), quantity: 2 }]
      })
      expect(order.contact_id).toBe(buyer.id)
      expect(order.items[0]).toMatchObject({ product_id: tracked.id, stock_taken: true })
      expect(await stockOf(client, tracked.id)).toBe(3)
      const listed = await client.get(`/orders?contact_id=${buyer.id.toUpperCase()}`)
      expect(listed.body.data.map((row: any) => row.id)).toEqual([order.id])
      await walk(client, order.id, ["cancelled"])
      expect(await stockOf(client, tracked.id)).toBe(5)
    })

    it("does not give back stock the sale never took, even if tracking started since", async () => {
      const { client } = await tenant(server)
      const later = await product(client, null)
      const order = await place(client, {
        buyer: { email: "later@example.com" },
        items: [{ ...MUG, product_id: later.id, quantity: 3 }]
      })
      await client.post(`/products/${later.id}/stock`, { count: 10 })
      await walk(client, order.id, ["cancelled"])
      expect(await stockOf(client, later.id)).toBe(10)
    })

    it("refuses a sale short of stock with 409 insufficient_stock and writes nothing: no order, no contact, no event", async () => {
      const { client } = await tenant(server)
      const scarce = await product(client, 1)
      const short = await client.post("/orders", {
        external_id: "short-1",
        buyer: { email: "short@example.com" },
        items: [{ ...MUG, product_id: scarce.id, quantity: 2 }]
      })
      expect(short.status, short.text).toBe(409)
      expect(short.body.error).toBe("insufficient_stock")
      expect(await stockOf(client, scarce.id)).toBe(1)
      expect((await client.get("/orders")).body.data).toEqual([])
      expect((await client.get("/contacts?email=short@example.com")).body.data).toEqual([])
      expect(await events(client, "contact.created")).toEqual([])
      expect(await events(client, "webshop.order")).toEqual([])
      // Nothing was kept of it: the same external id goes through once there is stock.
      await client.post(`/products/${scarce.id}/stock`, { delta: 5, reason: "restock" })
      await place(client, {
        external_id: "short-1",
        buyer: { email: "short@example.com" },
        items: [{ ...MUG, product_id: scarce.id, quantity: 2 }]
      })
      expect(await stockOf(client, scarce.id)).toBe(4)
    })

    it("under an Idempotency-Key, stores the refusal but none of the refused sale's writes", async () => {
      const { client } = await tenant(server)
      const scarce = await product(client, 1)
      const body = {
        external_id: "short-2",
        buyer: { email: "short2@example.com" },
        items: [{ ...MUG, product_id: scarce.id, quantity: 2 }]
      }
      const headers = { "idempotency-key": "short-sale" }
      const short = await client.post("/orders", body, headers)
      expect(short.status, short.text).toBe(409)
      // The buyer's contact was written before the stock ran short; it went with the refusal.
      expect((await client.get("/contacts?email=short2@example.com")).body.data).toEqual([])
      expect(await events(client, "contact.created")).toEqual([])
      const replay = await client.post("/orders", body, headers)
      expect(replay.status).toBe(409)
      expect(replay.headers.get("idempotency-replayed")).toBe("true")
      expect(replay.text).toBe(short.text)
    })
  })

  describe("PATCH /orders/{id}: fulfilment", () => {
    it.each(TABLE)("moves %s → %s", async (from, to) => {
      const { client } = await tenant(server)
      const order = await place(client, { buyer: { email: "row@example.com" } })
      await walk(client, order.id, [...PATH[from], to])
      expect((await client.get(`/orders/${order.id}`)).body.fulfilment).toBe(to)
    })

    it.each(STATES)("refuses every move from %s the table does not list with 409 {from, to}", async (from) => {
      const { client } = await tenant(server)
      const order = await place(client, { buyer: { email: "refused@example.com" } })
      await walk(client, order.id, PATH[from])
      const refused = STATES.filter((to) => !TABLE.some(([f, t]) => f === from && t === to))
      expect(refused).toContain(from)
      for (const to of refused) {
        const response = await client.patch(`/orders/${order.id}`, {
          fulfilment: to,
          ...(to === "shipped" ? { tracking_url: TRACKING } : {})
        })
        expect(response.status, `${from} → ${to}`).toBe(409)
        expect(response.body.error).toBe("transition_not_allowed")
        expect(response.body.detail).toEqual({ from, to })
      }
      expect((await client.get(`/orders/${order.id}`)).body.fulfilment).toBe(from)
    })

    it("needs tracking_url to ship (422 naming it), stores it and mails the buyer through the outbox", async () => {
      const { client, organisation } = await tenant(server)
      const order = await place(client, { buyer: { email: "Mail.Me@example.com", first_name: "Mia" } })
      await walk(client, order.id, ["confirmed"])
      const bare = await client.patch(`/orders/${order.id}`, { fulfilment: "shipped" })
      expect(bare.status).toBe(422)
      expect(bare.body.error).toBe("validation_failed")
      expect(bare.body.detail.map((issue: any) => issue.path)).toEqual(["tracking_url"])
      const bad = await client.patch(`/orders/${order.id}`, {
        fulfilment: "shipped",
        tracking_url: "javascript:alert(1)"
      })
      expect(bad.status).toBe(422)
      expect(await outbox(server, organisation.id)).toEqual([])

      const shipped = await client.patch(`/orders/${order.id}`, { fulfilment: "shipped", tracking_url: TRACKING })
      expect(shipped.status).toBe(200)
      expect(shipped.body).toMatchObject({ fulfilment: "shipped", tracking_url: TRACKING })
      expect((await client.get(`/orders/${order.id}`)).body.tracking_url).toBe(TRACKING)

      const [mail, ...rest] = await outbox(server, organisation.id)
      expect(rest).toEqual([])
      expect(mail).toMatchObject({ to: "mail.me@example.com", last_error: null })
      expect(mail.subject).toContain(order.order_number)
      expect(mail.body).toContain(TRACKING)
      expect(mail.body).toContain("Mia")
      expect(["queued", "sent"]).toContain(mail.status)

      // Delivered: no second mail, and the link can still be replaced (but not cleared).
      await walk(client, order.id, ["delivered"])
      const replaced = await client.patch(`/orders/${order.id}`, { tracking_url: `${TRACKING}?v=2` })
      expect(replaced.body.tracking_url).toBe(`${TRACKING}?v=2`)
      expect((await client.patch(`/orders/${order.id}`, { tracking_url: null })).status).toBe(422)
      expect(await outbox(server, organisation.id)).toHaveLength(1)
    })

    it("does not confirm or ship an order whose payment is pending (409 saying so)", async () => {
      const { client } = await tenant(server)
      const pending = await place(client, {
        buyer: { email: "pending@example.com" },
        payment_method: "card",
        payment_status: "pending"
      })
      const confirm = await client.patch(`/orders/${pending.id}`, { fulfilment: "confirmed" })
      expect(confirm.status).toBe(409)
      expect(confirm.body).toMatchObject({
        error: "transition_not_allowed",
        detail: { from: "new", to: "confirmed", reason: "payment_pending" }
      })
      // A pending order can still be cancelled.
      const other = await place(client, { buyer: { email: "pending@example.com" }, payment_status: "pending" })
      await walk(client, other.id, ["cancelled"])

      const confirmed = await place(client, { buyer: { email: "pending@example.com" } })
      await walk(client, confirmed.id, ["confirmed"])
      expect((await client.patch(`/orders/${confirmed.id}`, { payment_status: "pending" })).status).toBe(200)
      const ship = await client.patch(`/orders/${confirmed.id}`, { fulfilment: "shipped", tracking_url: TRACKING })
      expect(ship.status).toBe(409)
      expect(ship.body.detail).toEqual({ from: "confirmed", to: "shipped", reason: "payment_pending" })
      expect((await client.get(`/orders/${confirmed.id}`)).body).toMatchObject({
        fulfilment: "confirmed",
        tracking_url: null
      })
    })
  })

  describe("PATCH /orders/{id}: payment status", () => {
    it("pays a pending order and confirms it in one call, emitting order.paid with exactly its keys", async () => {
      const { client } = await tenant(server)
      const order = await place(client, {
        buyer: { email: "payer@example.com" },
        payment_method: "card",
        payment_status: "pending"
      })
      const both = await client.patch(`/orders/${order.id}`, { payment_status: "paid", fulfilment: "confirmed" })
      expect(both.status, both.text).toBe(200)
      expect(both.body).toMatchObject({ payment_status: "paid", fulfilment: "confirmed" })
      const paid = await events(client, "order.paid")
      expect(paid.map((event) => event.data)).toEqual([
        { id: order.id, order_number: order.order_number, amount: 24.2, currency: "EUR", provider: "card" }
      ])
    })

    it("follows its own table: pending → failed → pending → paid; paid is final; a refused move is 409 {from, to}", async () => {
      const { client } = await tenant(server)
      const order = await place(client, { buyer: { email: "retry@example.com" }, payment_status: "pending" })
      for (const status of ["failed", "pending", "paid"]) {
        const moved = await client.patch(`/orders/${order.id}`, { payment_status: status })
        expect(moved.status, moved.text).toBe(200)
        expect(moved.body.payment_status).toBe(status)
      }
      for (const status of ["paid", "pending", "failed", "none"]) {
        const refused = await client.patch(`/orders/${order.id}`, { payment_status: status })
        expect(refused.status).toBe(409)
        expect(refused.body).toMatchObject({ error: "transition_not_allowed", detail: { from: "paid", to: status } })
      }
      expect((await events(client, "order.paid")).map((event) => event.data.provider)).toEqual([null])

      const unpaid = await place(client, { buyer: { email: "retry@example.com" } })
      expect((await client.patch(`/orders/${unpaid.id}`, { payment_status: "failed" })).body.detail).toEqual({
        from: "none",
        to: "failed"
      })
    })

    it("changes nothing when either half of a PATCH is refused", async () => {
      const { client } = await tenant(server)
      const order = await place(client, { buyer: { email: "atomic@example.com" }, payment_status: "pending" })
      const refused = await client.patch(`/orders/${order.id}`, { payment_status: "paid", fulfilment: "delivered" })
      expect(refused.status).toBe(409)
      expect((await client.get(`/orders/${order.id}`)).body.payment_status).toBe("pending")
      expect(await events(client, "order.paid")).toEqual([])
      expect((await client.patch(`/orders/${order.id}`, {})).body.error).toBe("no_fields_to_update")
    })
  })

  describe("GET /orders", () => {
    it("lists newest first with the fulfilment, payment_status and contact_id filters; an unknown value is 422", async () => {
      const { client } = await tenant(server)
      const ada = await newContact(client, "ada.list@example.com")
      const first = await place(client, { contact_id: ada.id })
      const second = await place(client, { buyer: { email: "other.list@example.com" }, payment_status: "pending" })
      const third = await place(client, { contact_id: ada.id, payment_status: "paid" })
      await walk(client, third.id, ["confirmed"])
      const ids = async (query: string) => {
        const page = await client.get(`/orders${query}`)
        expect(page.status, page.text).toBe(200)
        return page.body.data.map((order: any) => order.id)
      }
      expect(await ids("")).toEqual(newestFirst(first, second, third))
      expect(await ids("?fulfilment=confirmed")).toEqual([third.id])
      expect(await ids("?fulfilment=new")).toEqual(newestFirst(first, second))
      expect(await ids("?payment_status=pending")).toEqual([second.id])
      expect(await ids(`?contact_id=${ada.id}`)).toEqual(newestFirst(first, third))
      expect(await ids(`?contact_id=${ada.id}&payment_status=none`)).toEqual([first.id])
      const page = await client.get("/orders?limit=2")
      expect(page.body).toMatchObject({ limit: 2, offset: 0, has_more: true })
      for (const bad of ["fulfilment=lost", "payment_status=refunded", "contact_id=nope", "limit=0"]) {
        const response = await client.get(`/orders?${bad}`)
        expect(response.status, bad).toBe(422)
        expect(response.body.error).toBe("validation_failed")
      }
    })

    it("answers 404 for another organisation's order, on GET and PATCH, and for a malformed id", async () => {
      const { client } = await tenant(server)
      const order = await place(client, { buyer: { email: "mine@example.com" } })
      const other = await tenant(server)
      expect((await other.client.get(`/orders/${order.id}`)).status).toBe(404)
      expect((await other.client.patch(`/orders/${order.id}`, { fulfilment: "cancelled" })).status).toBe(404)
      expect((await other.client.get("/orders")).body.data).toEqual([])
      expect((await client.get("/orders/not-a-uuid")).status).toBe(404)
      expect((await client.get(`/orders/${order.id}`)).body.fulfilment).toBe("new")
    })

    it("needs read to list and write to create or change", async () => {
      const readOnly = await server().tenant({ scopes: ["read"] })
      expect((await readOnly.client.get("/orders")).status).toBe(200)
      const create = await readOnly.client.post("/orders", {
        external_id: "x",
        buyer: { email: "x@example.com" },
        items: [MUG]
      })
      expect(create.status).toBe(403)
      expect(create.body.error).toBe("missing_scope:write")
    })
  })

  describe("admin mail outbox", () => {
    it("is 404 for an unknown organisation and needs the admin token", async () => {
      expect((await server().admin.get(`/organisations/${crypto.randomUUID()}/mail`)).status).toBe(404)
      expect((await server().admin.get("/organisations/not-a-uuid/mail")).status).toBe(404)
      expect((await server().admin.get(`/organisations/${crypto.randomUUID()}/mail?status=lost`)).status).toBe(422)
      const { organisation } = await tenant(server)
      expect((await checkedFetch(`${server().url}/admin/v1/organisations/${organisation.id}/mail`)).status).toBe(401)
    })
  })
})
