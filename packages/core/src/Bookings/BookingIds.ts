import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a booking series: branded, so that no other kind of id (or plain string) is taken for one. */
export const SeriesId = IdInput.brand<"SeriesId">()
export type SeriesId = z.output<typeof SeriesId>

/** The id of a booking: branded, so that no other kind of id (or plain string) is taken for one. */
export const BookingId = IdInput.brand<"BookingId">()
export type BookingId = z.output<typeof BookingId>
