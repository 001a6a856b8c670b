/** Booking series and bookings in memory. */
import { Bookings } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as LiveRecords from "./internal/liveRecords.js"
import { instant, newestFirst, type Store } from "./internal/Store.js"

type Booking = Bookings.Booking

const bookingSeries = LiveRecords.table<Bookings.Series>("booking_series")
export const bookingRows = LiveRecords.table<Booking>("bookings")

const byId = (a: Booking, b: Booking): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
const soonestFirst = (a: Booking, b: Booking): number => instant(a.starts_at) - instant(b.starts_at) || byId(a, b)
const latestFirst = (a: Booking, b: Booking): number => -soonestFirst(a, b)

export const make = (store: Store): Context.Tag.Service<typeof Bookings.BookingRepository> => {
  const series = LiveRecords.make<Bookings.Series>(store, { table: bookingSeries, noun: "booking series" })
  const bookings = LiveRecords.make<Booking>(store, { table: bookingRows, noun: "booking" })
  return Bookings.BookingRepository.of({
    insertSeries: series.insert,
    getSeries: series.get,
    listSeries: (organisationId, page) => series.list(organisationId, {}, page),
    insert: bookings.insert,
    get: bookings.get,
    getForUpdate: bookings.getForUpdate,
    update: bookings.update,
    list: (organisationId, filter, page) => {
      const asOf = filter.when === undefined ? 0 : instant(filter.when.asOf)
      const keep = (booking: Booking) =>
        (filter.status === undefined || booking.status === filter.status) &&
        (filter.seriesId === undefined || booking.series_id === filter.seriesId) &&
        (filter.seriesSeq === undefined || booking.series_seq === filter.seriesSeq) &&
        (filter.contactId === undefined || booking.contact_id === filter.contactId) &&
        (filter.when === undefined ||
          (filter.when.side === "upcoming" ? instant(booking.starts_at) >= asOf : instant(booking.starts_at) < asOf))
      const order =
        filter.when === undefined ? newestFirst : filter.when.side === "upcoming" ? soonestFirst : latestFirst
      return Effect.map(bookings.select(organisationId, keep, order), (rows) =>
        rows.slice(page.offset, page.offset + page.limit + 1)
      )
    }
  })
}
