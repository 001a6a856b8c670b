import { Bookings } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { type BookingRow, bookingTable, seriesTable, toBooking, toSeries } from "./internal/siteRows.js"

const series = LiveRecords.liveTable({ table: seriesTable, toRecord: toSeries, repository: "BookingRepository" })

const bookings = LiveRecords.liveTable({ table: bookingTable, toRecord: toBooking, repository: "BookingRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Bookings.BookingRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const seriesRows = LiveRecords.make(sql, series)
  const live = LiveRecords.make(sql, bookings)

  return Bookings.BookingRepository.of({
    insertSeries: (organisationId, record) => seriesRows.insert(organisationId, record),
    getSeries: seriesRows.get,
    listSeries: (organisationId, page) => seriesRows.list(organisationId, {}, page),
    insert: (organisationId, booking) => live.insert(organisationId, booking),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, booking) =>
      live.update(organisationId, booking.id, {
        status: booking.status,
        starts_at: booking.starts_at,
        ends_at: booking.ends_at,
        contact_id: booking.contact_id,
        answers: booking.answers,
        updated_at: booking.updated_at
      }),
    list: (organisationId, filter, page) => {
      const conditions = [
        live.whereLive(organisationId),
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
        ...(filter.seriesId !== undefined ? [sql`series_id = ${filter.seriesId}::uuid`] : []),
        ...(filter.seriesSeq !== undefined ? [sql`series_seq = ${filter.seriesSeq}::integer`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.when === undefined
          ? []
          : filter.when.side === "upcoming"
            ? [sql`starts_at >= ${filter.when.asOf}::timestamptz`]
            : [sql`starts_at < ${filter.when.asOf}::timestamptz`])
      ]
      const order = sql.literal(
        filter.when === undefined
          ? "created_at DESC, id DESC"
          : filter.when.side === "upcoming"
            ? "starts_at ASC, id ASC"
            : "starts_at DESC, id DESC"
      )
      return sql<BookingRow>`SELECT ${live.selected} FROM bookings WHERE ${sql.and(conditions)}
        ORDER BY ${order} LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
        Effect.map((rows) => rows.map(toBooking)),
        orStorageError("BookingRepository.list")
      )
    }
  })
})

export const layer = Layer.effect(Bookings.BookingRepository, make)
