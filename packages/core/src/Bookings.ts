/**
 * Bookings: series (a recurring bookable thing with its questions) and the bookings made on them.
 * The catalogue has no booking events, so no operation here emits one.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import * as BookingAnswers from "./Bookings/BookingAnswers.js"
import { BookingId, SeriesId } from "./Bookings/BookingIds.js"
import { BookingRepository } from "./Bookings/BookingRepository.js"
import type {
  Booking,
  BookingCreate,
  BookingListQuery,
  Series,
  SeriesCreate,
  SeriesListQuery,
  BookingStatus as Status
} from "./Bookings/BookingSchemas.js"
import * as BookingStatus from "./Bookings/BookingStatus.js"
import * as BusinessTime from "./BusinessClock/BusinessTime.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import {
  invalidField,
  type NotFound,
  type StorageError,
  type TransitionNotAllowed,
  ValidationFailed
} from "./Errors.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { linked, nowIso, orNotFound, requireLink } from "./internal/records.js"
import type { Organisation } from "./Organisation.js"
import { Transaction } from "./Transaction.js"
import { normaliseEmail, type PageResult, toPage, toUtc } from "./Wire.js"

export * as BookingAnswers from "./Bookings/BookingAnswers.js"
export * from "./Bookings/BookingRepository.js"
export * from "./Bookings/BookingSchemas.js"
// Not `BookingStatus`: that is the schema of the status (from the schemas), which this name would hide.
export * as BookingStates from "./Bookings/BookingStatus.js"

export class Bookings extends Context.Tag("@crm/core/Bookings")<
  Bookings,
  {
    readonly createSeries: (
      organisation: Organisation,
      input: z.output<typeof SeriesCreate>
    ) => Effect.Effect<Series, StorageError>
    readonly listSeries: (
      organisation: Organisation,
      query: SeriesListQuery
    ) => Effect.Effect<PageResult<Series>, StorageError>
    /**
     * Checks the series (and its questions), the contact, `series_seq` only with a series, and
     * `ends_at` after `starts_at` (default: starts_at plus the series' duration).
     */
    readonly create: (
      organisation: Organisation,
      input: z.output<typeof BookingCreate>
    ) => Effect.Effect<Booking, ValidationFailed | StorageError>
    readonly get: (organisation: Organisation, id: BookingId) => Effect.Effect<Booking, NotFound | StorageError>
    /** Moves along the booking status machine; the same status again changes nothing. */
    readonly setStatus: (
      organisation: Organisation,
      id: BookingId,
      status: Status
    ) => Effect.Effect<Booking, NotFound | TransitionNotAllowed | StorageError>
    readonly list: (
      organisation: Organisation,
      query: BookingListQuery
    ) => Effect.Effect<PageResult<Booking>, StorageError>
  }
>() {}

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* BookingRepository
  const contacts = yield* ContactRepository
  const tx = yield* Transaction

  return Bookings.of({
    createSeries: operation("Bookings.createSeries")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const now = yield* nowIso
          const series: Series = {
            id: brand(SeriesId, ids.next()),
            name: input.name,
            duration_minutes: input.duration_minutes,
            location: input.location ?? null,
            questions: input.questions,
            created_at: now,
            updated_at: now
          }
          yield* repo.insertSeries(organisation.id, series)
          return series
        })
      )
    }),
    listSeries: (organisation, query) =>
      Effect.map(repo.listSeries(organisation.id, query), (rows) => toPage(rows, query)),
    create: operation("Bookings.create")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const seriesId = input.series_id ?? null
          const series =
            seriesId === null ? null : yield* linked("series_id", seriesId, (id) => repo.getSeries(organisation.id, id))
          if (series === null && input.series_seq != null) {
            return yield* invalidField("series_seq", "an occurrence number needs a series_id", "requires_series")
          }
          yield* requireLink("contact_id", input.contact_id, (id) => contacts.get(organisation.id, id))
          const startsAt = toUtc(input.starts_at)
          let endsAt: string
          if (input.ends_at !== undefined) endsAt = toUtc(input.ends_at)
          else if (series !== null)
            endsAt = new Date(Date.parse(startsAt) + series.duration_minutes * 60_000).toISOString()
          else return yield* invalidField("ends_at", "required for a booking without a series", "required")
          if (Date.parse(endsAt) <= Date.parse(startsAt)) {
            return yield* invalidField("ends_at", "must be after starts_at", "invalid_range")
          }
          const issues = BookingAnswers.check(series?.questions ?? [], input.answers)
          if (issues.length > 0) return yield* new ValidationFailed({ detail: issues })
          const now = yield* nowIso
          const booking: Booking = {
            id: brand(BookingId, ids.next()),
            series_id: seriesId,
            series_seq: input.series_seq ?? null,
            contact_id: input.contact_id ?? null,
            name: input.name,
            email: normaliseEmail(input.email),
            starts_at: startsAt,
            ends_at: endsAt,
            status: input.status,
            answers: input.answers,
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, booking)
          return booking
        })
      )
    }),
    get: (organisation, id) => repo.get(organisation.id, id).pipe(orNotFound("booking")),
    setStatus: operation("Bookings.setStatus")(function* (organisation, id, status) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* repo.getForUpdate(organisation.id, id).pipe(orNotFound("booking"))
          if (current.status === status) return current
          const next: Booking = {
            ...current,
            status: yield* BookingStatus.transition(current.status, status),
            updated_at: yield* nowIso
          }
          yield* repo.update(organisation.id, next)
          return next
        })
      )
    }),
    list: (organisation, query) =>
      Effect.gen(function* () {
        // Upcoming and past by the business clock (a test clock may stand elsewhere).
        const now = yield* BusinessTime.iso(organisation)
        const rows = yield* repo.list(
          organisation.id,
          {
            ...(query.status !== undefined ? { status: query.status } : {}),
            ...(query.series_id !== undefined ? { seriesId: query.series_id } : {}),
            ...(query.series_seq !== undefined ? { seriesSeq: query.series_seq } : {}),
            ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
            ...(query.upcoming !== undefined
              ? { when: { asOf: now, side: query.upcoming ? ("upcoming" as const) : ("past" as const) } }
              : {})
          },
          query
        )
        return toPage(rows, query)
      })
  })
})

export const layer = Layer.effect(Bookings, make)
