/**
 * Returns over HTTP: a return names lines of its order and never more units than the line
 * delivered less what the order's other returns claim; receiving it puts the goods back into
 * tracked stock through the products' ledger, in the same transaction as its new status and
 * `return.updated`.
 */
import { expect, it } from "vitest"
import { events, movements, paths, refused } from "../support/answers.js"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const deliver = async (client: Client, orderId: string) => {
  for (const patch of [
    { fulfilment: "confirmed" },
    { fulfilment: "shipped", tracking_url: "https://track.example/1" },
    { fulfilment: "delivered" }
  ]) {
    const moved = await client.patch(`/orders/${orderId}`, patch)
    expect(moved.status, moved.text).toBe(200)
  }
}

/**
 * A mug (5 in stock) and a shirt in size S (3 in stock), sold with a line without a product:
 * 2 mugs, 1 shirt S, 1 gift wrap. The sale leaves 3 mugs and 2 shirts.
 */
const sold = async (client: Client) => {
  const contact = await client.post("/contacts", { first_name: "Ann", email: `ann-${crypto.randomUUID()}@x.test` })
  const mug = (await client.post("/products", { sku: "MUG", name: "Mug", unit_price: 10 })).body
  const shirt = (
    await client.post("/products", {
      sku: "SHIRT",
      name: "Shirt",
      options: [{ name: "size", values: ["S", "M"] }],
      variants: [{ options: { size: "S" } }, { options: { size: "M" } }]
    })
  ).body
  const small = shirt.variants[0].id
  await client.post(`/products/${mug.id}/stock`, { count: 5 })
  await client.post(`/products/${shirt.id}/stock`, { count: 3, variant_id: small })
  const order = await client.post("/orders", {
    external_id: `shop-${crypto.randomUUID()}`,
    contact_id: contact.body.id,
    items: [
      { product_id: mug.id, name: "Mug", quantity: 2, unit_price: 10, vat_rate: 21 },
      { product_id: shirt.id, variant_id: small, name: "Shirt S", quantity: 1, unit_price: 20, vat_rate: 21 },
      { name: "Gift wrap", quantity: 1, unit_price: 2, vat_rate: 21 }
    ]
  })
  expect(order.status, order.text).toBe(201)
  const levels = async () => {
    const [m, s] = await Promise.all([client.get(`/products/${mug.id}`), client.get(`/products/${shirt.id}`)])
    return { mug: m.body.stock, small: s.body.variants[0].stock }
  }
  return { contact: contact.body, mug, shirt, small, order: order.body, levels }
}

onEveryStore("returns", (server) => {
  it("takes back lines of a delivered order, never more than delivered less what other returns claim", async () => {
    const { client } = await server().tenant()
    const { contact, mug, shirt, small, order } = await sold(client)
    const ask = (items: ReadonlyArray<{ line: number; quantity: number }>) =>
      client.post("/returns", { order_id: order.id, items })

    // Nothing has arrived at the buyer yet.
    const early = await ask([{ line: 0, quantity: 1 }])
    refused(early, 422, "validation_failed")
    expect(paths(early)).toEqual(["items.0.quantity"])
    expect(early.body.detail[0].message).toContain("not delivered")
    await deliver(client, order.id)

    const unknown = await ask([
      { line: 0, quantity: 1 },
      { line: 3, quantity: 1 }
    ])
    refused(unknown, 422, "validation_failed")
    expect(paths(unknown)).toEqual(["items.1.line"])
    const tooMany = await ask([{ line: 0, quantity: 3 }])
    refused(tooMany, 422, "validation_failed")
    expect(paths(tooMany)).toEqual(["items.0.quantity"])
    // The same line twice counts once, in all.
    const twice = await ask([
      { line: 0, quantity: 1 },
      { line: 0, quantity: 2 }
    ])
    expect(paths(twice)).toEqual(["items.1.quantity"])
    refused(
      await client.post("/returns", { order_id: order.id, items: [{ line: 0, quantity: 1, name: "Mug" }] }),
      422,
      "validation_failed"
    )
    expect(await events(client, "return.created")).toEqual([])

    const first = await client.post("/returns", {
      order_id: order.id,
      items: [
        { line: 0, quantity: 1 },
        { line: 1, quantity: 1 },
        { line: 2, quantity: 1 }
      ],
      reason: "changed my mind"
    })
    expect(first.status, first.text).toBe(201)
    expect(first.body).toMatchObject({
      order_id: order.id,
      contact_id: contact.id,
      status: "requested",
      reason: "changed my mind",
      items: [
        { line: 0, product_id: mug.id, variant_id: null, name: "Mug", quantity: 1 },
        { line: 1, product_id: shirt.id, variant_id: small, name: "Shirt S", quantity: 1 },
        { line: 2, product_id: null, variant_id: null, name: "Gift wrap", quantity: 1 }
      ]
    })
    expect((await client.get(`/returns/${first.body.id}`)).body).toEqual(first.body)

    // One mug and no shirt left to claim.
    const shirtAgain = await ask([{ line: 1, quantity: 1 }])
    refused(shirtAgain, 422, "validation_failed")
    expect(paths(shirtAgain)).toEqual(["items.0.quantity"])
    const second = await ask([{ line: 0, quantity: 1 }])
    expect(second.status, second.text).toBe(201)
    refused(await ask([{ line: 0, quantity: 1 }]), 422, "validation_failed")
    // A rejected return claims nothing any more.
    expect((await client.patch(`/returns/${second.body.id}`, { status: "rejected" })).status).toBe(200)
    const third = await ask([{ line: 0, quantity: 1 }])
    expect(third.status, third.text).toBe(201)

    expect(await events(client, "return.created")).toEqual(
      [first.body, second.body, third.body].map((rma) => ({ id: rma.id, number: rma.number, order_id: order.id }))
    )
    const listed = await client.get(`/returns?order_id=${order.id}&status=requested`)
    expect(listed.body.data.map((rma: any) => rma.id).sort()).toEqual([first.body.id, third.body.id].sort())
  })

  it("puts received goods back into tracked stock through the ledger, once, naming the return and its order", async () => {
    const { client, keyId } = await server().tenant()
    const { mug, shirt, small, order, levels } = await sold(client)
    await deliver(client, order.id)
    const rma = (
      await client.post("/returns", {
        order_id: order.id,
        items: [
          { line: 0, quantity: 2 },
          { line: 1, quantity: 1 },
          { line: 2, quantity: 1 }
        ]
      })
    ).body
    expect(await levels()).toEqual({ mug: 3, small: 2 })

    const approved = await client.patch(`/returns/${rma.id}`, { status: "approved" })
    expect(approved.status).toBe(200)
    expect(await levels()).toEqual({ mug: 3, small: 2 })
    const received = await client.patch(`/returns/${rma.id}`, { status: "received" })
    expect(received.status, received.text).toBe(200)
    expect(received.body.status).toBe("received")
    expect(await levels()).toEqual({ mug: 5, small: 3 })
    const [back] = await movements(client, mug.id)
    expect(back).toMatchObject({
      kind: "return",
      quantity: 2,
      level: 5,
      variant_id: null,
      order_id: order.id,
      return_id: rma.id,
      purchase_order_id: null,
      key_id: keyId
    })
    const [shirtBack] = await movements(client, shirt.id, `&variant_id=${small}`)
    expect(shirtBack).toMatchObject({ kind: "return", quantity: 1, level: 3, return_id: rma.id })

    // The same status again changes nothing: no second restock, no event.
    const again = await client.patch(`/returns/${rma.id}`, { status: "received" })
    expect(again.status).toBe(200)
    expect((await client.patch(`/returns/${rma.id}`, { status: "refunded" })).status).toBe(200)
    expect(await levels()).toEqual({ mug: 5, small: 3 })
    expect(await events(client, "return.updated")).toEqual([
      { id: rma.id, status: "approved" },
      { id: rma.id, status: "received" },
      { id: rma.id, status: "refunded" }
    ])
    const late = await client.patch(`/returns/${rma.id}`, { status: "cancelled" })
    refused(late, 409, "transition_not_allowed")
    expect(late.body.detail).toEqual({ from: "refunded", to: "cancelled" })
  })

  it("a receipt the ledger refuses changes nothing: the status, the stock and the events stay", async () => {
    const { client } = await server().tenant()
    const { mug, order, levels } = await sold(client)
    await deliver(client, order.id)
    const rma = (
      await client.post("/returns", {
        order_id: order.id,
        items: [
          { line: 1, quantity: 1 },
          { line: 0, quantity: 1 }
        ]
      })
    ).body
    await client.patch(`/returns/${rma.id}`, { status: "approved" })
    // The mug is full to the ledger's bound: one more unit has nowhere to go.
    expect((await client.post(`/products/${mug.id}/stock`, { count: 1_000_000_000 })).status).toBe(200)
    const full = await client.patch(`/returns/${rma.id}`, { status: "received" })
    refused(full, 422, "validation_failed")
    expect(paths(full)).toEqual(["items.1.quantity"])
    expect((await client.get(`/returns/${rma.id}`)).body.status).toBe("approved")
    expect(await levels()).toEqual({ mug: 1_000_000_000, small: 2 })
    expect(await events(client, "return.updated")).toEqual([{ id: rma.id, status: "approved" }])
  })

  it("needs a live order of the organisation, and answers 404 for another organisation's return", async () => {
    const a = await server().tenant()
    const b = await server().tenant()
    const { order } = await sold(a.client)
    await deliver(a.client, order.id)
    for (const orderId of [order.id, crypto.randomUUID()]) {
      const foreign = await b.client.post("/returns", { order_id: orderId, items: [{ line: 0, quantity: 1 }] })
      refused(foreign, 422, "validation_failed")
      expect(paths(foreign)).toEqual(["order_id"])
    }
    const rma = await a.client.post("/returns", { order_id: order.id, items: [{ line: 0, quantity: 1 }] })
    for (const response of [
      await b.client.get(`/returns/${rma.body.id}`),
      await b.client.patch(`/returns/${rma.body.id}`, { status: "approved" })
    ]) {
      refused(response, 404, "not_found")
    }
    expect((await b.client.get("/returns")).body.data).toEqual([])
    refused(await a.client.patch(`/returns/${rma.body.id}`, {}), 422, "no_fields_to_update")
  })
})
