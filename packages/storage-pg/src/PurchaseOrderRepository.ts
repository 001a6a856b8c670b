import { PurchaseOrders } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { type PurchaseOrderRow, toPurchaseOrder } from "./internal/serviceRows.js"
import { json } from "./internal/values.js"

const purchaseOrders: LiveRecords.LiveTable<PurchaseOrderRow, PurchaseOrders.PurchaseOrder> = {
  table: "purchase_orders",
  columns: "id, number, supplier, status, items, note, ordered_at, received_at, created_at, updated_at",
  toRecord: toPurchaseOrder,
  repository: "PurchaseOrderRepository"
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof PurchaseOrders.PurchaseOrderRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, purchaseOrders)

  return PurchaseOrders.PurchaseOrderRepository.of({
    insert: (organisationId, order) =>
      live.insert(
        organisationId,
        sql`${order.id}::uuid, ${order.number}, ${order.supplier}, ${order.status}, ${json(order.items)}::jsonb,
          ${order.note}, ${order.ordered_at}::timestamptz, ${order.received_at}::timestamptz,
          ${order.created_at}::timestamptz, ${order.updated_at}::timestamptz`
      ),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, order) =>
      live.update(
        organisationId,
        order.id,
        sql`number = ${order.number}, supplier = ${order.supplier}, status = ${order.status},
          items = ${json(order.items)}::jsonb, note = ${order.note}, ordered_at = ${order.ordered_at}::timestamptz,
          received_at = ${order.received_at}::timestamptz, updated_at = ${order.updated_at}::timestamptz`
      ),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, filter.status !== undefined ? [sql`status = ${filter.status}`] : [])
  })
})

export const layer = Layer.effect(PurchaseOrders.PurchaseOrderRepository, make)
