import { expect, it } from "vitest"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const PRODUCT_FIELDS = [
  "active",
  "category",
  "created_at",
  "currency",
  "id",
  "kind",
  "low_stock_threshold",
  "name",
  "options",
  "sku",
  "stock",
  "unit",
  "unit_price",
  "updated_at",
  "variants",
  "vat_rate"
]

const events = async (client: Client, name?: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0${name === undefined ? "" : `&event=${name}`}`)
  expect(page.status).toBe(200)
  return page.body.data
}

const paths = (response: { body: any }): Array<string> => response.body.detail.map((issue: any) => issue.path).sort()

const refused = (response: { status: number; body: any }, status: number, error: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status)
  expect(response.body.error).toBe(error)
}

const movements = async (client: Client, id: string, query = ""): Promise<Array<any>> => {
  const page = await client.get(`/products/${id}/stock-movements?limit=200${query}`)
  expect(page.status).toBe(200)
  return page.body.data
}

const ledgerSum = (rows: ReadonlyArray<{ quantity: number }>) => rows.reduce((sum, row) => sum + row.quantity, 0)

const SHIRT = {
  sku: "TS-1",
  name: "T-shirt",
  unit_price: 20,
  options: [
    { name: "size", values: ["S", "M", "L"] },
    { name: "colour", values: ["red", "blue"] }
  ],
  variants: [
    { sku: "TS-1-S-RED", options: { size: "S", colour: "red" } },
    { options: { size: "M", colour: "blue" }, unit_price: 22.5 }
  ]
}

onEveryStore("products", (server) => {
  it("creates a product with defaults, reads it, and patches keeping omitted fields and clearing with null", async () => {
    const { client } = await server().tenant({ settings: { default_currency: "CZK" } })
    const created = await client.post("/products", {
      sku: "MUG-1",
      name: "Mug",
      unit_price: 199.9,
      vat_rate: 21,
      category: "kitchen"
    })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual(PRODUCT_FIELDS)
    expect(created.body).toMatchObject({
      sku: "MUG-1",
      name: "Mug",
      unit: "pcs",
      unit_price: 199.9,
      currency: "CZK",
      vat_rate: 21,
      active: true,
      kind: "physical",
      category: "kitchen",
      low_stock_threshold: null,
      stock: null,
      options: [],
      variants: []
    })
    expect(created.body.created_at).toMatch(ISO_MS)
    const id = created.body.id
    expect((await client.get(`/products/${id}`)).body).toEqual(created.body)

    const patched = await client.patch(`/products/${id}`, { name: "Big mug", category: null, active: false })
    expect(patched.status).toBe(200)
    expect(patched.body).toEqual({
      ...created.body,
      name: "Big mug",
      category: null,
      active: false,
      updated_at: patched.body.updated_at
    })
    expect((await client.get(`/products/${id}`)).body).toEqual(patched.body)

    const service = await client.post("/products", {
      sku: "FIT",
      name: "Fitting",
      unit: "h",
      currency: "JPY",
      unit_price: 5000,
      kind: "service",
      active: false,
      low_stock_threshold: 2
    })
    expect(service.body).toMatchObject({
      unit: "h",
      currency: "JPY",
      kind: "service",
      active: false,
      low_stock_threshold: 2
    })
  })

  it("emits product.created and product.updated with exactly the catalogue's keys, and nothing for stock moves", async () => {
    const { client } = await server().tenant()
    const created = await client.post("/products", { sku: "A", name: "A", unit_price: 10, vat_rate: 21 })
    const id = created.body.id
    await client.post(`/products/${id}/stock`, { count: 5 })
    await client.post(`/products/${id}/stock`, { delta: -1 })
    await client.patch(`/products/${id}`, { unit_price: 12.5 })
    const log = await events(client)
    expect(log.map((e) => e.event)).toEqual(["product.created", "product.updated"])
    expect(log[0].data).toEqual({
      id,
      sku: "A",
      name: "A",
      unit: "pcs",
      unit_price: 10,
      currency: "EUR",
      vat_rate: 21,
      active: true
    })
    expect(Object.keys(log[0].data)).toEqual([
      "id",
      "sku",
      "name",
      "unit",
      "unit_price",
      "currency",
      "vat_rate",
      "active"
    ])
    expect(log[1].data).toEqual({ id, sku: "A", name: "A", unit_price: 12.5, active: true })
    expect(Object.keys(log[1].data)).toEqual(["id", "sku", "name", "unit_price", "active"])
  })

  it("refuses bad bodies, prices finer than the currency's minor unit, a taken SKU and an empty PATCH", async () => {
    const { client } = await server().tenant()
    for (const [body, path] of [
      [{ name: "x" }, "sku"],
      [{ sku: "x" }, "name"],
      [{ sku: "x", name: "x", nickname: "y" }, "nickname"],
      [{ sku: "x", name: "x", kind: "rental" }, "kind"],
      [{ sku: "x", name: "x", unit_price: 10.123 }, "unit_price"],
      [{ sku: "x", name: "x", currency: "JPY", unit_price: 1.5 }, "unit_price"],
      [{ sku: "x", name: "x", unit_price: -1 }, "unit_price"],
      [{ sku: "x", name: "x", low_stock_threshold: 1.5 }, "low_stock_threshold"]
    ] as const) {
      const answer = await client.post("/products", body)
      refused(answer, 422, "validation_failed")
      expect(paths(answer), JSON.stringify(body)).toEqual([path])
    }
    const first = await client.post("/products", { sku: "SKU-1", name: "One" })
    const second = await client.post("/products", { sku: "SKU-2", name: "Two" })
    const taken = await client.post("/products", { sku: "SKU-1", name: "Again" })
    refused(taken, 422, "validation_failed")
    expect(paths(taken)).toEqual(["sku"])
    const takenOnPatch = await client.patch(`/products/${second.body.id}`, { sku: "SKU-1" })
    refused(takenOnPatch, 422, "validation_failed")
    expect(paths(takenOnPatch)).toEqual(["sku"])
    expect((await client.get(`/products/${second.body.id}`)).body.sku).toBe("SKU-2")
    // A product keeps its own SKU, and a SKU given up is free again.
    expect((await client.patch(`/products/${first.body.id}`, { sku: "SKU-1", name: "Uno" })).status).toBe(200)
    expect((await client.patch(`/products/${first.body.id}`, { sku: "SKU-1b" })).status).toBe(200)
    expect((await client.post("/products", { sku: "SKU-1", name: "Reused" })).status).toBe(201)
    // Another organisation may use the same SKU.
    const other = await server().tenant()
    expect((await other.client.post("/products", { sku: "SKU-2", name: "Theirs" })).status).toBe(201)

    for (const body of [{}, { nickname: "y" }]) {
      refused(await client.patch(`/products/${first.body.id}`, body), 422, "no_fields_to_update")
    }
    const mixed = await client.patch(`/products/${first.body.id}`, { name: "y", nickname: "y" })
    refused(mixed, 422, "validation_failed")
    expect(paths(mixed)).toEqual(["nickname"])
    const precise = await client.patch(`/products/${first.body.id}`, { currency: "JPY", unit_price: 10.5 })
    refused(precise, 422, "validation_failed")
    expect(paths(precise)).toEqual(["unit_price"])
  })

  it("keeps a ledger: count starts tracking, deltas move it, count null stops, and the level is always Σ ledger", async () => {
    const { client, keyId } = await server().tenant()
    const { body: product } = await client.post("/products", { sku: "L", name: "Ledger" })
    const stock = (body: unknown) => client.post(`/products/${product.id}/stock`, body)

    const untracked = await stock({ delta: 5 })
    refused(untracked, 409, "stock_not_tracked")
    expect(untracked.body.detail).toMatchObject({ product_id: product.id, variant_id: null })

    const counted = await stock({ count: 10, note: "opening stocktake" })
    expect(counted.status).toBe(200)
    expect(counted.body).toEqual({ ...product, stock: 10 })
    expect((await stock({ delta: -3 })).body.stock).toBe(7)
    expect((await stock({ delta: 4, reason: "restock" })).body.stock).toBe(11)
    expect((await stock({ delta: 1, reason: "return" })).body.stock).toBe(12)
    const short = await stock({ delta: -13 })
    refused(short, 409, "insufficient_stock")
    expect(short.body.detail).toMatchObject({ product_id: product.id, variant_id: null, level: 12, quantity: -13 })
    expect((await client.get(`/products/${product.id}`)).body.stock).toBe(12)
    expect((await stock({ count: 9 })).body.stock).toBe(9)
    expect((await stock({ delta: -9 })).body.stock).toBe(0)

    const stopped = await stock({ count: null })
    expect(stopped.status).toBe(200)
    expect(stopped.body.stock).toBeNull()
    refused(await stock({ delta: 1 }), 409, "stock_not_tracked")
    refused(await stock({ delta: -1 }), 409, "stock_not_tracked")
    expect((await stock({ count: 4 })).body.stock).toBe(4)

    const rows = await movements(client, product.id)
    expect(rows.map((row) => [row.kind, row.quantity, row.level])).toEqual([
      ["count", 4, 4],
      ["count", 0, null],
      ["adjust", -9, 0],
      ["count", -3, 9],
      ["return", 1, 12],
      ["restock", 4, 11],
      ["adjust", -3, 7],
      ["count", 10, 10]
    ])
    expect(ledgerSum(rows)).toBe(4)
    // Σ since tracking restarted is the level too.
    expect(ledgerSum(rows.slice(0, 1))).toBe(4)
    expect(rows.at(-1)).toMatchObject({
      product_id: product.id,
      variant_id: null,
      key_id: keyId,
      order_id: null,
      note: "opening stocktake"
    })
    for (const row of rows) expect(row.created_at).toMatch(ISO_MS)
    const paged = await client.get(`/products/${product.id}/stock-movements?limit=3&offset=1`)
    expect(paged.body).toMatchObject({ limit: 3, offset: 1, has_more: true })
    expect(paged.body.data).toEqual(rows.slice(1, 4))
  })

  it("wants exactly one of delta or count, a whole delta other than zero, and no variant_id without variants", async () => {
    const { client } = await server().tenant()
    const { body: product } = await client.post("/products", { sku: "S", name: "S" })
    for (const body of [
      {},
      { delta: 1, count: 1 },
      { delta: 1, count: null },
      { delta: 0 },
      { delta: 1.5 },
      { count: -1 },
      { count: 2.5 },
      { count: 1, reason: "restock" },
      { delta: 1, reason: "sale" },
      { reason: "restock" },
      { delta: 1, extra: true }
    ]) {
      refused(await client.post(`/products/${product.id}/stock`, body), 422, "validation_failed")
    }
    const withVariant = await client.post(`/products/${product.id}/stock`, {
      count: 1,
      variant_id: crypto.randomUUID()
    })
    refused(withVariant, 422, "validation_failed")
    expect(paths(withVariant)).toEqual(["variant_id"])
    expect(await movements(client, product.id)).toEqual([])
  })

  it("sells in variants: variant_id required and one of its own, stock summed over tracked variants", async () => {
    const { client } = await server().tenant()
    const created = await client.post("/products", SHIRT)
    expect(created.status).toBe(201)
    const { body: shirt } = created
    expect(shirt.options).toEqual(SHIRT.options)
    expect(shirt.variants).toHaveLength(2)
    const [small, medium] = shirt.variants
    expect(small).toEqual({
      id: small.id,
      sku: "TS-1-S-RED",
      options: { size: "S", colour: "red" },
      unit_price: null,
      stock: null
    })
    expect(medium).toMatchObject({ sku: null, unit_price: 22.5, stock: null })
    expect(shirt.stock).toBeNull()

    const stock = (body: unknown) => client.post(`/products/${shirt.id}/stock`, body)
    const missing = await stock({ count: 3 })
    refused(missing, 422, "variant_required")
    const unknown = await stock({ count: 3, variant_id: crypto.randomUUID() })
    refused(unknown, 422, "validation_failed")
    expect(paths(unknown)).toEqual(["variant_id"])
    const other = await client.post("/products", {
      ...SHIRT,
      sku: "TS-2",
      variants: [{ options: { size: "L", colour: "red" } }]
    })
    refused(await stock({ count: 3, variant_id: other.body.variants[0].id }), 422, "validation_failed")

    const one = await stock({ count: 3, variant_id: small.id })
    expect(one.body.stock).toBe(3)
    expect(one.body.variants.map((v: any) => v.stock)).toEqual([3, null])
    refused(await stock({ delta: 1, variant_id: medium.id }), 409, "stock_not_tracked")
    const both = await stock({ count: 0, variant_id: medium.id })
    expect(both.body.stock).toBe(3)
    expect((await stock({ delta: 5, reason: "restock", variant_id: medium.id })).body.stock).toBe(8)
    const short = await stock({ delta: -4, variant_id: small.id })
    refused(short, 409, "insufficient_stock")
    expect(short.body.detail).toMatchObject({ product_id: shirt.id, variant_id: small.id, level: 3 })

    expect((await movements(client, shirt.id)).map((row) => row.variant_id)).toEqual([medium.id, medium.id, small.id])
    const onlySmall = await movements(client, shirt.id, `&variant_id=${small.id}`)
    expect(onlySmall.map((row) => [row.variant_id, row.quantity])).toEqual([[small.id, 3]])
    refused(
      await client.get(`/products/${shirt.id}/stock-movements?variant_id=${crypto.randomUUID()}`),
      422,
      "validation_failed"
    )
  })

  it("answers a level past what one item holds with 422 naming delta, never a 500, and sums large variant levels", async () => {
    const { client } = await server().tenant()
    const plain = await client.post("/products", { sku: "BIG-1", name: "Screw" })
    const stock = (id: string, body: unknown) => client.post(`/products/${id}/stock`, body)
    expect((await stock(plain.body.id, { count: 1_000_000_000 })).status).toBe(200)
    const over = await stock(plain.body.id, { delta: 1, reason: "restock" })
    refused(over, 422, "validation_failed")
    expect(paths(over)).toEqual(["delta"])
    expect((await client.get(`/products/${plain.body.id}`)).body.stock).toBe(1_000_000_000)
    expect(await movements(client, plain.body.id)).toHaveLength(1)

    const shirt = await client.post("/products", {
      ...SHIRT,
      sku: "BIG-2",
      variants: [
        { options: { size: "S", colour: "red" } },
        { options: { size: "M", colour: "red" } },
        { options: { size: "L", colour: "red" } }
      ]
    })
    expect(shirt.status, shirt.text).toBe(201)
    for (const variant of shirt.body.variants) {
      const counted = await stock(shirt.body.id, { count: 1_000_000_000, variant_id: variant.id })
      expect(counted.status, counted.text).toBe(200)
    }
    expect((await client.get(`/products/${shirt.body.id}`)).body.stock).toBe(3_000_000_000)
    const ok = await client.get("/products?stock=ok")
    expect(ok.status).toBe(200)
    expect(ok.body.data.map((row: any) => row.id).sort()).toEqual([plain.body.id, shirt.body.id].sort())
  })

  it("refuses a low_stock_threshold past the largest level (422), and filters with a huge organisation default", async () => {
    const { client } = await server().tenant({ settings: { stock: { low_stock_threshold: 3_000_000_000 } } })
    const huge = await client.post("/products", { sku: "HUGE", name: "Huge", low_stock_threshold: 3_000_000_000 })
    refused(huge, 422, "validation_failed")
    expect(paths(huge)).toEqual(["low_stock_threshold"])
    const created = await client.post("/products", { sku: "LOW", name: "Low" })
    expect((await client.post(`/products/${created.body.id}/stock`, { count: 7 })).status).toBe(200)
    const low = await client.get("/products?stock=low")
    expect(low.status, low.text).toBe(200)
    expect(low.body.data.map((row: any) => row.id)).toEqual([created.body.id])
  })

  it("checks variant options against the product's and keeps variant stock across a PATCH by id", async () => {
    const { client } = await server().tenant()
    for (const [variants, path] of [
      [[{ options: { size: "XL", colour: "red" } }], "variants.0.options.size"],
      [[{ options: { size: "S" } }], "variants.0.options.colour"],
      [[{ options: { size: "S", colour: "red", fit: "slim" } }], "variants.0.options.fit"],
      [[{ options: { size: "S", colour: "red" } }, { options: { colour: "red", size: "S" } }], "variants.1.options"],
      [[{ options: { size: "S", colour: "red" }, unit_price: 1.001 }], "variants.0.unit_price"]
    ] as const) {
      const answer = await client.post("/products", { ...SHIRT, variants })
      refused(answer, 422, "validation_failed")
      expect(paths(answer), JSON.stringify(variants)).toEqual([path])
    }
    const plain = await client.post("/products", { sku: "P", name: "P", variants: [{ options: {} }] })
    refused(plain, 422, "validation_failed")
    expect(paths(plain)).toEqual(["variants"])

    const { body: shirt } = await client.post("/products", SHIRT)
    const [small, medium] = shirt.variants
    await client.post(`/products/${shirt.id}/stock`, { count: 4, variant_id: small.id })
    await client.post(`/products/${shirt.id}/stock`, { count: 0, variant_id: medium.id })

    const replaced = await client.patch(`/products/${shirt.id}`, {
      variants: [
        { id: small.id, sku: "TS-1-S-RED", options: { size: "S", colour: "red" }, unit_price: 19 },
        { options: { size: "L", colour: "blue" } }
      ]
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.variants).toEqual([
      { id: small.id, sku: "TS-1-S-RED", options: { size: "S", colour: "red" }, unit_price: 19, stock: 4 },
      {
        id: replaced.body.variants[1].id,
        sku: null,
        options: { size: "L", colour: "blue" },
        unit_price: null,
        stock: null
      }
    ])
    expect(replaced.body.stock).toBe(4)
    expect((await client.get(`/products/${shirt.id}`)).body).toEqual(replaced.body)

    const large = { id: replaced.body.variants[1].id, options: { size: "L", colour: "blue" } }
    const holding = await client.patch(`/products/${shirt.id}`, { variants: [large] })
    refused(holding, 422, "validation_failed")
    expect(paths(holding)).toEqual(["variants"])
    const stranger = await client.patch(`/products/${shirt.id}`, {
      variants: [{ id: crypto.randomUUID(), options: { size: "S", colour: "red" } }]
    })
    refused(stranger, 422, "validation_failed")
    expect(paths(stranger)).toEqual(["variants.0.id"])
    const narrowed = await client.patch(`/products/${shirt.id}`, { options: [{ name: "size", values: ["S", "M"] }] })
    refused(narrowed, 422, "validation_failed")
    expect((await client.get(`/products/${shirt.id}`)).body).toEqual(replaced.body)

    // Counted to 0, the variant may go; its ledger stays for the audit.
    await client.post(`/products/${shirt.id}/stock`, { count: 0, variant_id: small.id })
    const dropped = await client.patch(`/products/${shirt.id}`, { variants: [large] })
    expect(dropped.status).toBe(200)
    expect(dropped.body.stock).toBeNull()
    expect((await movements(client, shirt.id)).filter((row) => row.variant_id === small.id)).toHaveLength(2)

    // A product holding stock of its own cannot switch to variants until it is counted out.
    const { body: plainProduct } = await client.post("/products", { sku: "Q", name: "Q" })
    await client.post(`/products/${plainProduct.id}/stock`, { count: 2 })
    const switched = await client.patch(`/products/${plainProduct.id}`, {
      options: [{ name: "size", values: ["S"] }],
      variants: [{ options: { size: "S" } }]
    })
    refused(switched, 422, "validation_failed")
    expect(paths(switched)).toEqual(["options"])
  })

  it("filters by active, category, kind and stock band with the product's or the organisation's threshold", async () => {
    const { client } = await server().tenant({ settings: { stock: { low_stock_threshold: 3 } } })
    const make = async (sku: string, body: Record<string, unknown>, count?: number | null) => {
      const created = await client.post("/products", { sku, name: sku, ...body })
      expect(created.status).toBe(201)
      if (count !== undefined) await client.post(`/products/${created.body.id}/stock`, { count })
      return created.body.id as string
    }
    const untracked = await make("untracked", { category: "a" })
    const out = await make("out", { category: "a" }, 0)
    const lowDefault = await make("low-default", { kind: "digital" }, 3)
    const okDefault = await make("ok-default", { active: false }, 4)
    const lowOwn = await make("low-own", { low_stock_threshold: 10 }, 10)
    const okOwn = await make("ok-own", { low_stock_threshold: 0 }, 1)
    const stopped = await make("stopped", {}, 5)
    await client.post(`/products/${stopped}/stock`, { count: null })

    const ids = async (query: string) => {
      const page = await client.get(`/products?${query}`)
      expect(page.status, query).toBe(200)
      return page.body.data.map((p: any) => p.id).sort()
    }
    expect(await ids("stock=untracked")).toEqual([untracked, stopped].sort())
    expect(await ids("stock=out")).toEqual([out])
    expect(await ids("stock=low")).toEqual([lowDefault, lowOwn].sort())
    expect(await ids("stock=ok")).toEqual([okDefault, okOwn].sort())
    expect(await ids("category=a")).toEqual([untracked, out].sort())
    expect(await ids("kind=digital")).toEqual([lowDefault])
    expect(await ids("active=false")).toEqual([okDefault])
    expect(await ids("active=true&stock=ok")).toEqual([okOwn])
    expect((await ids("active=true")).length).toBe(6)

    const all = await client.get("/products?limit=3")
    expect(all.body).toMatchObject({ limit: 3, offset: 0, has_more: true })
    expect(all.body.data.map((p: any) => p.sku)).toEqual(["stopped", "ok-own", "low-own"])

    for (const query of ["stock=plenty", "kind=rental", "active=yes", "limit=0", "category="]) {
      refused(await client.get(`/products?${query}`), 422, "validation_failed")
    }
  })

  it("answers 404 for another organisation's product on every route, and for a malformed id", async () => {
    const a = await server().tenant()
    const b = await server().tenant()
    const { body: product } = await a.client.post("/products", { sku: "X", name: "X" })
    for (const response of [
      await b.client.get(`/products/${product.id}`),
      await b.client.patch(`/products/${product.id}`, { name: "mine" }),
      await b.client.post(`/products/${product.id}/stock`, { count: 1 }),
      await b.client.get(`/products/${product.id}/stock-movements`),
      await a.client.get("/products/not-a-uuid")
    ]) {
      refused(response, 404, "not_found")
    }
    expect((await b.client.get("/products")).body.data).toEqual([])
    expect((await a.client.get(`/products/${product.id}`)).body).toEqual(product)
    const reader = await a.client.get(`/products/${product.id}`)
    expect(reader.status).toBe(200)
  })

  it("needs write to change and read to look", async () => {
    const { organisation } = await server().tenant()
    const writer = await server().admin.post(`/organisations/${organisation.id}/keys`, { scopes: ["read", "write"] })
    const readOnly = await server().admin.post(`/organisations/${organisation.id}/keys`, { scopes: ["read"] })
    const product = await server().as(writer.body.key).post("/products", { sku: "R", name: "R" })
    const reader = server().as(readOnly.body.key)
    refused(await reader.post("/products", { sku: "R2", name: "R2" }), 403, "missing_scope:write")
    refused(await reader.post(`/products/${product.body.id}/stock`, { count: 1 }), 403, "missing_scope:write")
    expect((await reader.get(`/products/${product.body.id}/stock-movements`)).status).toBe(200)
  })

  it("lets quote and invoice lines name a product and one of its variants of the organisation, else 422", async () => {
    const { client } = await server().tenant({ scopes: ["read", "write", "quotes:write", "invoices:write"] })
    const other = await server().tenant()
    const { body: mug } = await client.post("/products", { sku: "MUG", name: "Mug" })
    const { body: shirt } = await client.post("/products", SHIRT)
    const { body: theirs } = await other.client.post("/products", { ...SHIRT, sku: "THEIRS" })
    const line = (link: Record<string, unknown>) => ({
      name: "Line",
      quantity: 1,
      unit_price: 10,
      vat_rate: 21,
      ...link
    })

    for (const path of ["/quotes", "/invoices"]) {
      const created = await client.post(path, {
        items: [
          line({ product_id: mug.id }),
          line({ product_id: shirt.id, variant_id: shirt.variants[1].id }),
          line({})
        ]
      })
      expect(created.status, path).toBe(201)
      expect(created.body.items.map((item: any) => [item.product_id, item.variant_id])).toEqual([
        [mug.id, null],
        [shirt.id, shirt.variants[1].id],
        [null, null]
      ])
      // An id in upper case names the same product on every store, and is stored as PostgreSQL would.
      const shouted = await client.post(path, {
        items: [line({ product_id: shirt.id.toUpperCase(), variant_id: shirt.variants[0].id.toUpperCase() })]
      })
      expect(shouted.status, path).toBe(201)
      expect([shouted.body.items[0].product_id, shouted.body.items[0].variant_id]).toEqual([
        shirt.id,
        shirt.variants[0].id
      ])
      for (const [items, field] of [
        [[line({ product_id: theirs.id })], "items.0.product_id"],
        [[line({}), line({ product_id: crypto.randomUUID() })], "items.1.product_id"],
        [[line({ product_id: shirt.id, variant_id: theirs.variants[0].id })], "items.0.variant_id"],
        [[line({ product_id: mug.id, variant_id: shirt.variants[0].id })], "items.0.variant_id"],
        [[line({ variant_id: shirt.variants[0].id })], "items.0.variant_id"]
      ] as const) {
        const answer = await client.post(path, { items })
        refused(answer, 422, "validation_failed")
        expect(paths(answer), `${path} ${field}`).toEqual([field])
        const patched = await client.patch(`${path}/${created.body.id}`, { items })
        refused(patched, 422, "validation_failed")
        expect(paths(patched), `${path} PATCH ${field}`).toEqual([field])
      }
      expect((await client.get(`${path}/${created.body.id}`)).body.items).toEqual(created.body.items)
    }
  })

  it("moves stock once for a request repeated with the same Idempotency-Key", async () => {
    const { client } = await server().tenant()
    const { body: product } = await client.post("/products", { sku: "I", name: "I" })
    await client.post(`/products/${product.id}/stock`, { count: 5 })
    const first = await client.post(`/products/${product.id}/stock`, { delta: -2 }, { "idempotency-key": "take-two" })
    const again = await client.post(`/products/${product.id}/stock`, { delta: -2 }, { "idempotency-key": "take-two" })
    expect(first.status).toBe(200)
    expect(again.status).toBe(200)
    expect(again.headers.get("idempotency-replayed")).toBe("true")
    expect(again.body).toEqual(first.body)
    expect((await client.get(`/products/${product.id}`)).body.stock).toBe(3)
    expect(await movements(client, product.id)).toHaveLength(2)
  })

  it("lets 25 concurrent decrements of a stock of 10 take exactly 10, never below zero, level = Σ ledger", async () => {
    const { client } = await server().tenant()
    const { body: product } = await client.post("/products", { sku: "C", name: "C" })
    await client.post(`/products/${product.id}/stock`, { count: 10 })
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => client.post(`/products/${product.id}/stock`, { delta: -1 }))
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(10)
    expect(statuses.filter((status) => status === 409)).toHaveLength(15)
    for (const answer of answers.filter((a) => a.status === 409)) expect(answer.body.error).toBe("insufficient_stock")
    expect((await client.get(`/products/${product.id}`)).body.stock).toBe(0)
    const rows = await movements(client, product.id)
    expect(rows).toHaveLength(11)
    expect(ledgerSum(rows)).toBe(0)
    expect(rows.map((row) => row.level)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  })
})
