import { Calls } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { callTable, toCall } from "./internal/serviceRows.js"

const calls = LiveRecords.liveTable({ table: callTable, toRecord: toCall, repository: "CallRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Calls.CallRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, calls)

  return Calls.CallRepository.of({
    insert: (organisationId, call) => live.insert(organisationId, call),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, call) => live.update(organisationId, call.id, call),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.direction !== undefined ? [sql`direction = ${filter.direction}`] : []),
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : [])
      ])
  })
})

export const layer = Layer.effect(Calls.CallRepository, make)
