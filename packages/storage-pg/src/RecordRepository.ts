import { Records } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { type CustomRecordRow, customRecordTable, toCustomRecord } from "./internal/recordRows.js"
import { count } from "./internal/storedValues.js"
import { textArray } from "./internal/values.js"

const records = LiveRecords.liveTable({
  table: customRecordTable,
  toRecord: toCustomRecord,
  searchable: ["title"],
  repository: "RecordRepository"
})

export const make: Effect.Effect<
  Context.Tag.Service<typeof Records.RecordRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, records)

  return Records.RecordRepository.of({
    insert: (organisationId, record) => live.insert(organisationId, record),
    get: live.get,
    getForUpdate: live.getForUpdate,
    getMany: (organisationId, ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : sql<CustomRecordRow>`SELECT ${live.selected} FROM custom_records
            WHERE ${live.whereLive(organisationId)} AND id = ANY(${textArray(ids)}::uuid[])`.pipe(
            Effect.map((rows) => rows.map(toCustomRecord)),
            orStorageError("RecordRepository.getMany")
          ),
    // A record keeps the type it was created with.
    update: (organisationId, { type_id: _type, ...record }) => live.update(organisationId, record.id, record),
    countHolding: (organisationId, fields) =>
      fields.length === 0
        ? Effect.succeed([])
        : sql<{ type_id: string; field: string; n: string }>`SELECT f.type_id, f.field, count(*) AS n
            FROM custom_records r
            JOIN unnest(${textArray(fields.map((f) => f.type_id))}::uuid[], ${textArray(fields.map((f) => f.field))}::text[])
              AS f (type_id, field) ON f.type_id = r.type_id
            WHERE r.organisation_id = ${organisationId}::uuid AND r.archived_at IS NULL AND r.custom ? f.field
            GROUP BY f.type_id, f.field`.pipe(
            Effect.map((rows) =>
              rows.map((row) => ({ type_id: row.type_id, field: row.field, records: count(row.n) }))
            ),
            orStorageError("RecordRepository.countHolding")
          ),
    list: (organisationId, filter, page) =>
      live.list(organisationId, filter.q === undefined ? {} : { q: filter.q }, page, [
        ...(filter.typeId !== undefined ? [sql`type_id = ${filter.typeId}::uuid`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.companyId !== undefined ? [sql`company_id = ${filter.companyId}::uuid`] : []),
        ...(filter.dealId !== undefined ? [sql`deal_id = ${filter.dealId}::uuid`] : [])
      ])
  })
})

export const layer = Layer.effect(Records.RecordRepository, make)
