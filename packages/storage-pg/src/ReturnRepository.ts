import { Returns } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { type ReturnRow, returnTable, toReturn } from "./internal/serviceRows.js"

const returns = LiveRecords.liveTable({ table: returnTable, toRecord: toReturn, repository: "ReturnRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Returns.ReturnRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, returns)

  return Returns.ReturnRepository.of({
    insert: (organisationId, rma) => live.insert(organisationId, rma),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, rma) => live.update(organisationId, rma.id, rma),
    ofOrder: (organisationId, orderId) =>
      sql<ReturnRow>`SELECT ${live.selected} FROM returns
        WHERE ${live.whereLive(organisationId)} AND order_id = ${orderId}::uuid
        ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(toReturn)),
        orStorageError("ReturnRepository.ofOrder")
      ),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
        ...(filter.orderId !== undefined ? [sql`order_id = ${filter.orderId}::uuid`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : [])
      ])
  })
})

export const layer = Layer.effect(Returns.ReturnRepository, make)
