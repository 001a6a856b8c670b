/**
 * Purchase orders over HTTP: lines checked against the organisation's products, the status
 * machine, and receipts that bring goods into tracked stock through the products' ledger (with
 * the variant), in the same transaction as the order's new state and `purchase_order.received`.
 */
import { expect, it } from "vitest"
import { events, movements, paths, refused } from "../support/answers.js"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"
import { onOneDay } from "../support/today.js"

/** A plain mug with 5 in stock, and a shirt in sizes S (2 in stock) and M (untracked). */
const stocked = async (client: Client) => {
  const mug = await client.post("/products", { sku: "MUG", name: "Mug", unit_price: 10 })
  const shirt = await client.post("/products", {
    sku: "SHIRT",
    name: "Shirt",
    options: [{ name: "size", values: ["S", "M"] }],
    variants: [{ options: { size: "S" } }, { options: { size: "M" } }]
  })
  expect([mug.status, shirt.status]).toEqual([201, 201])
  const [small, medium] = shirt.body.variants.map((variant: any) => variant.id)
  expect((await client.post(`/products/${mug.body.id}/stock`, { count: 5 })).status).toBe(200)
  expect((await client.post(`/products/${shirt.body.id}/stock`, { count: 2, variant_id: small })).status).toBe(200)
  const levels = async () => {
    const [m, s] = await Promise.all([client.get(`/products/${mug.body.id}`), client.get(`/products/${shirt.body.id}`)])
    return { mug: m.body.stock, small: s.body.variants[0].stock, medium: s.body.variants[1]?.stock }
  }
  return { mug: mug.body, shirt: shirt.body, small, medium, levels }
}

onEveryStore("purchase orders", (server) => {
  it("receives goods into tracked stock through the ledger, variant by variant, partial then received", () =>
    onOneDay("UTC", async (today) => {
      const { client, keyId } = await server().tenant()
      const { mug, shirt, small, medium, levels } = await stocked(client)

      const created = await client.post("/purchase-orders", {
        supplier: "Pottery Ltd",
        items: [
          { product_id: mug.id, name: "Mug", quantity: 10 },
          { product_id: shirt.id, variant_id: small, name: "Shirt S", quantity: 4 },
          { product_id: shirt.id, variant_id: medium, name: "Shirt M", quantity: 3 },
          { name: "Packing tape", quantity: 2 }
        ],
        note: "before the fair"
      })
      expect(created.status, created.text).toBe(201)
      expect(created.body).toMatchObject({
        number: `PO${today.slice(0, 4)}-0001`,
        supplier: "Pottery Ltd",
        status: "draft",
        note: "before the fair",
        ordered_at: null,
        received_at: null
      })
      const po = created.body
      const [mugLine, smallLine, mediumLine, tapeLine] = po.items
      expect(po.items.map((line: any) => [line.product_id, line.variant_id, line.received_quantity])).toEqual([
        [mug.id, null, 0],
        [shirt.id, small, 0],
        [shirt.id, medium, 0],
        [null, null, 0]
      ])
      expect((await client.get(`/purchase-orders/${po.id}`)).body).toEqual(po)

      // A draft has not been ordered: nothing can arrive yet, and nothing moves.
      const early = await client.post(`/purchase-orders/${po.id}/receive`, {
        items: [{ line_id: mugLine.id, quantity: 1 }]
      })
      refused(early, 409, "transition_not_allowed")
      expect(early.body.detail).toEqual({ from: "draft", to: "received" })
      const ordered = await client.post(`/purchase-orders/${po.id}/order`)
      expect(ordered.status).toBe(200)
      expect(ordered.body.status).toBe("ordered")
      expect(await levels()).toEqual({ mug: 5, small: 2, medium: null })

      const partial = await client.post(`/purchase-orders/${po.id}/receive`, {
        items: [
          { line_id: mugLine.id, quantity: 4 },
          { line_id: smallLine.id, quantity: 4 }
        ]
      })
      expect(partial.status, partial.text).toBe(200)
      expect(partial.body.status).toBe("partial")
      expect(partial.body.items.map((line: any) => line.received_quantity)).toEqual([4, 4, 0, 0])
      expect(await levels()).toEqual({ mug: 9, small: 6, medium: null })
      const [mugReceipt] = await movements(client, mug.id)
      expect(mugReceipt).toMatchObject({
        kind: "receipt",
        quantity: 4,
        level: 9,
        variant_id: null,
        purchase_order_id: po.id,
        order_id: null,
        return_id: null,
        key_id: keyId
      })
      const [smallReceipt] = await movements(client, shirt.id, `&variant_id=${small}`)
      expect(smallReceipt).toMatchObject({ kind: "receipt", quantity: 4, level: 6, variant_id: small })
      expect(await events(client, "purchase_order.received")).toEqual([])

      // More than is still missing: refused whole, nothing moves.
      const over = await client.post(`/purchase-orders/${po.id}/receive`, {
        items: [
          { line_id: tapeLine.id, quantity: 2 },
          { line_id: mugLine.id, quantity: 7 }
        ]
      })
      refused(over, 422, "validation_failed")
      expect(paths(over)).toEqual(["items.1.quantity"])
      expect(await levels()).toEqual({ mug: 9, small: 6, medium: null })
      expect((await client.get(`/purchase-orders/${po.id}`)).body.items[3].received_quantity).toBe(0)

      const received = await client.post(`/purchase-orders/${po.id}/receive`, {
        items: [
          { line_id: mugLine.id, quantity: 6 },
          { line_id: mediumLine.id, quantity: 3 },
          { line_id: tapeLine.id, quantity: 2 }
        ]
      })
      expect(received.status, received.text).toBe(200)
      expect(received.body.status).toBe("received")
      expect(received.body.received_at).not.toBeNull()
      // Size M is not tracked: its units are recorded on the order, not invented into a level.
      expect(await levels()).toEqual({ mug: 15, small: 6, medium: null })
      expect((await movements(client, shirt.id, `&variant_id=${medium}`)).map((row) => row.kind)).toEqual([])
      const mugLedger = await movements(client, mug.id)
      expect(mugLedger.map((row) => [row.kind, row.quantity, row.level])).toEqual([
        ["receipt", 6, 15],
        ["receipt", 4, 9],
        ["count", 5, 5]
      ])
      expect(await events(client, "purchase_order.received")).toEqual([{ id: po.id, number: po.number }])

      refused(
        await client.post(`/purchase-orders/${po.id}/receive`, { items: [{ line_id: mugLine.id, quantity: 1 }] }),
        409,
        "transition_not_allowed"
      )
      refused(await client.post(`/purchase-orders/${po.id}/cancel`), 409, "transition_not_allowed")
      expect(await levels()).toEqual({ mug: 15, small: 6, medium: null })
    }))

  it("refuses lines naming a product it cannot stock, and a receipt the ledger refuses moves nothing at all", async () => {
    const { client } = await server().tenant()
    const other = await server().tenant()
    const { mug, shirt, small, medium, levels } = await stocked(client)
    const foreign = await other.client.post("/products", { sku: "THEIRS", name: "Theirs" })

    const line = (fields: object) => client.post("/purchase-orders", { supplier: "S", items: [fields] })
    const stranger = await line({ product_id: foreign.body.id, name: "x", quantity: 1 })
    refused(stranger, 422, "validation_failed")
    expect(paths(stranger)).toEqual(["items.0.product_id"])
    refused(await line({ product_id: shirt.id, name: "x", quantity: 1 }), 422, "variant_required")
    const plain = await line({ product_id: mug.id, variant_id: small, name: "x", quantity: 1 })
    refused(plain, 422, "validation_failed")
    expect(paths(plain)).toEqual(["items.0.variant_id"])
    const orphan = await line({ variant_id: small, name: "x", quantity: 1 })
    refused(orphan, 422, "validation_failed")
    expect(paths(orphan)).toEqual(["items.0.variant_id"])
    expect((await client.get("/purchase-orders")).body.data).toEqual([])

    const po = (
      await client.post("/purchase-orders", {
        supplier: "S",
        items: [
          { product_id: mug.id, name: "Mug", quantity: 2 },
          { product_id: shirt.id, variant_id: medium, name: "Shirt M", quantity: 1 }
        ]
      })
    ).body
    await client.post(`/purchase-orders/${po.id}/order`)
    // Size M goes away after the order (it held nothing); its units have no item to enter.
    const dropped = await client.patch(`/products/${shirt.id}`, {
      variants: [{ id: small, options: { size: "S" } }]
    })
    expect(dropped.status, dropped.text).toBe(200)
    const refusedReceipt = await client.post(`/purchase-orders/${po.id}/receive`, {
      items: [
        { line_id: po.items[0].id, quantity: 2 },
        { line_id: po.items[1].id, quantity: 1 }
      ]
    })
    refused(refusedReceipt, 422, "validation_failed")
    expect(paths(refusedReceipt)).toEqual(["items.1.variant_id"])
    // One transaction: the mug's units did not enter either, and the order is as it was.
    expect((await levels()).mug).toBe(5)
    expect((await movements(client, mug.id)).map((row) => row.kind)).toEqual(["count"])
    const unchanged = await client.get(`/purchase-orders/${po.id}`)
    expect(unchanged.body).toMatchObject({ status: "ordered" })
    expect(unchanged.body.items.map((item: any) => item.received_quantity)).toEqual([0, 0])
    expect(await events(client, "purchase_order.received")).toEqual([])
  })

  it("cancels what has not arrived, keeping what did; lists by status; 404 across organisations", async () => {
    const { client } = await server().tenant()
    const other = await server().tenant()
    const { mug, levels } = await stocked(client)
    const draft = (await client.post("/purchase-orders", { supplier: "A", items: [{ name: "x", quantity: 1 }] })).body
    const started = (
      await client.post("/purchase-orders", {
        supplier: "B",
        items: [{ product_id: mug.id, name: "Mug", quantity: 5 }]
      })
    ).body
    await client.post(`/purchase-orders/${started.id}/order`)
    await client.post(`/purchase-orders/${started.id}/receive`, {
      items: [{ line_id: started.items[0].id, quantity: 2 }]
    })
    const cancelled = await client.post(`/purchase-orders/${started.id}/cancel`)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body).toMatchObject({ status: "cancelled", received_at: null })
    expect(cancelled.body.items[0].received_quantity).toBe(2)
    expect((await levels()).mug).toBe(7)

    const ids = async (query: string) =>
      (await client.get(`/purchase-orders${query}`)).body.data.map((p: any) => p.id).sort()
    expect(await ids("")).toEqual([started.id, draft.id].sort())
    expect(await ids("?status=cancelled")).toEqual([started.id])
    expect(await ids("?status=draft")).toEqual([draft.id])
    refused(await client.get("/purchase-orders?status=lost"), 422, "validation_failed")
    for (const response of [
      await other.client.get(`/purchase-orders/${draft.id}`),
      await other.client.post(`/purchase-orders/${draft.id}/order`),
      await other.client.post(`/purchase-orders/${draft.id}/receive`, {
        items: [{ line_id: draft.items[0].id, quantity: 1 }]
      })
    ]) {
      refused(response, 404, "not_found")
    }
    expect((await other.client.get("/purchase-orders")).body.data).toEqual([])
  })
})
