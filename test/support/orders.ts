import { expect } from "vitest"
import type { Client } from "./server.js"

export const TRACKING = "https://track.example.com/parcel/9"

/** An order to `email`, confirmed and shipped: shipping queues the buyer's mail with the tracking link. */
export const shipTo = async (client: Client, email: string) => {
  const order = await client.post("/orders", {
    external_id: crypto.randomUUID(),
    buyer: { email },
    items: [{ name: "Mug", quantity: 1, unit_price: 10, vat_rate: 21 }]
  })
  expect(order.status, order.text).toBe(201)
  expect((await client.patch(`/orders/${order.body.id}`, { fulfilment: "confirmed" })).status).toBe(200)
  const shipped = await client.patch(`/orders/${order.body.id}`, { fulfilment: "shipped", tracking_url: TRACKING })
  expect(shipped.status, shipped.text).toBe(200)
  return shipped.body
}
