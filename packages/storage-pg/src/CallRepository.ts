import { Calls } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { type CallRow, toCall } from "./internal/serviceRows.js"

const calls: LiveRecords.LiveTable<CallRow, Calls.Call> = {
  table: "calls",
  columns: `id, provider, external_id, direction, status, duration_seconds, from_number, to_number, contact_id,
    recording_url, started_at, transcript, summary, created_at, updated_at`,
  toRecord: toCall,
  repository: "CallRepository"
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof Calls.CallRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, calls)

  return Calls.CallRepository.of({
    insert: (organisationId, call) =>
      live.insert(
        organisationId,
        sql`${call.id}::uuid, ${call.provider}, ${call.external_id}, ${call.direction}, ${call.status},
          ${call.duration_seconds}::integer, ${call.from_number}, ${call.to_number}, ${call.contact_id}::uuid,
          ${call.recording_url}, ${call.started_at}::timestamptz, ${call.transcript}, ${call.summary},
          ${call.created_at}::timestamptz, ${call.updated_at}::timestamptz`
      ),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, call) =>
      live.update(
        organisationId,
        call.id,
        sql`provider = ${call.provider}, external_id = ${call.external_id}, direction = ${call.direction},
          status = ${call.status}, duration_seconds = ${call.duration_seconds}::integer,
          from_number = ${call.from_number}, to_number = ${call.to_number}, contact_id = ${call.contact_id}::uuid,
          recording_url = ${call.recording_url}, started_at = ${call.started_at}::timestamptz,
          transcript = ${call.transcript}, summary = ${call.summary}, updated_at = ${call.updated_at}::timestamptz`
      ),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.direction !== undefined ? [sql`direction = ${filter.direction}`] : []),
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : [])
      ])
  })
})

export const layer = Layer.effect(Calls.CallRepository, make)
