import { Errors, Orders } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isUniqueViolation } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { orderTable, toOrder } from "./internal/rows.js"

const EXTERNAL_ID = "orders_external_id"

const orders = LiveRecords.liveTable({ table: orderTable, toRecord: toOrder, repository: "OrderRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Orders.OrderRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, orders)

  // The insert runs in its own savepoint: a unique violation rolls back only the savepoint, and the
  // caller's transaction can still read which order holds the external id (committed by then,
  // since the violation waited for it).
  const guardExternalId =
    (organisationId: string, externalId: string): LiveRecords.Guard<Errors.OrderAlreadyExists> =>
    (write) =>
      sql.withTransaction(write).pipe(
        Effect.catchIf(
          (error) => isUniqueViolation(error, EXTERNAL_ID),
          () =>
            Effect.flatMap(
              sql<{ id: string }>`SELECT id FROM orders
                WHERE organisation_id = ${organisationId}::uuid AND external_id = ${externalId}`,
              (rows) =>
                Effect.fail(
                  new Errors.OrderAlreadyExists({ detail: { id: rows[0]?.id ?? null, external_id: externalId } })
                )
            )
        )
      )

  return Orders.OrderRepository.of({
    insert: (organisationId, order) =>
      live.insert(organisationId, order, guardExternalId(organisationId, order.external_id)),
    get: live.get,
    getForUpdate: live.getForUpdate,
    // The fields an order can change after it is placed (number, buyer and amounts never do).
    update: (organisationId, order) =>
      live.update(organisationId, order.id, {
        fulfilment: order.fulfilment,
        payment_status: order.payment_status,
        tracking_url: order.tracking_url,
        items: order.items,
        updated_at: order.updated_at
      }),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.fulfilment !== undefined ? [sql`fulfilment = ${filter.fulfilment}`] : []),
        ...(filter.paymentStatus !== undefined ? [sql`payment_status = ${filter.paymentStatus}`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : [])
      ])
  })
})

export const layer = Layer.effect(Orders.OrderRepository, make)
