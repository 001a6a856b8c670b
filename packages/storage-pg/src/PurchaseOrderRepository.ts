import { PurchaseOrders } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { purchaseOrderTable, toPurchaseOrder } from "./internal/serviceRows.js"

const purchaseOrders = LiveRecords.liveTable({
  table: purchaseOrderTable,
  toRecord: toPurchaseOrder,
  repository: "PurchaseOrderRepository"
})

export const make: Effect.Effect<
  Context.Tag.Service<typeof PurchaseOrders.PurchaseOrderRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, purchaseOrders)

  return PurchaseOrders.PurchaseOrderRepository.of({
    insert: (organisationId, order) => live.insert(organisationId, order),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, order) => live.update(organisationId, order.id, order),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, filter.status !== undefined ? [sql`status = ${filter.status}`] : [])
  })
})

export const layer = Layer.effect(PurchaseOrders.PurchaseOrderRepository, make)
