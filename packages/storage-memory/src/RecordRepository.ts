/** Custom records in memory: rows per organisation, with the list filters of the port. */
import { Records } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as LiveRecords from "./internal/liveRecords.js"
import type { Store } from "./internal/Store.js"

const records = LiveRecords.table<Records.CustomRecord>("custom_records")

export const make = (store: Store): Context.Tag.Service<typeof Records.RecordRepository> => {
  const live = LiveRecords.make<Records.CustomRecord>(store, {
    table: records,
    noun: "record",
    searchable: (record) => [record.title]
  })
  return Records.RecordRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    getMany: (organisationId, ids) => {
      const wanted = new Set(ids)
      return wanted.size === 0
        ? Effect.succeed([])
        : live.select(
            organisationId,
            (record) => wanted.has(record.id),
            () => 0
          )
    },
    update: live.update,
    countHolding: (organisationId, fields) =>
      Effect.map(
        live.select(
          organisationId,
          (record) => fields.some((field) => field.type_id === record.type_id),
          () => 0
        ),
        (records) =>
          fields.flatMap((field) => {
            const n = records.filter(
              (record) => record.type_id === field.type_id && Object.hasOwn(record.custom, field.field)
            ).length
            return n > 0 ? [{ ...field, records: n }] : []
          })
      ),
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        filter.q === undefined ? {} : { q: filter.q },
        page,
        (record) =>
          (filter.typeId === undefined || record.type_id === filter.typeId) &&
          (filter.contactId === undefined || record.contact_id === filter.contactId) &&
          (filter.companyId === undefined || record.company_id === filter.companyId) &&
          (filter.dealId === undefined || record.deal_id === filter.dealId)
      )
  })
}
