import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { RecordStore } from "../Resource.js"
import type { Page } from "../Wire.js"
import type { SeriesId } from "./BookingIds.js"
import type { Booking, BookingStatus, Series } from "./BookingSchemas.js"

export interface BookingFilter {
  readonly status?: BookingStatus
  readonly seriesId?: SeriesId
  readonly seriesSeq?: number
  readonly contactId?: ContactId
  /**
   * By start time relative to `asOf`: `upcoming` keeps `starts_at >= asOf`, soonest first; `past`
   * keeps `starts_at < asOf`, latest first. Without it: every booking, newest created first.
   */
  readonly when?: { readonly asOf: string; readonly side: "upcoming" | "past" }
}

/** Booking series and the bookings of one organisation. */
export class BookingRepository extends Context.Tag("@crm/core/BookingRepository")<
  BookingRepository,
  Pick<RecordStore<Booking, BookingFilter>, "insert" | "get" | "getForUpdate" | "update"> & {
    readonly insertSeries: (organisationId: OrganisationId, series: Series) => Effect.Effect<void, StorageError>
    readonly getSeries: (
      organisationId: OrganisationId,
      id: SeriesId
    ) => Effect.Effect<Option.Option<Series>, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly listSeries: (
      organisationId: OrganisationId,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Series>, StorageError>
    /** In the order `filter.when` says (ties by id); at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: BookingFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<Booking>, StorageError>
  }
>() {}
