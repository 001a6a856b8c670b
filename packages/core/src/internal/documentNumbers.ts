import * as Effect from "effect/Effect"
import { today } from "../BusinessClock/BusinessTime.js"
import type { StorageError } from "../Errors.js"
import { format, type Series } from "../Invoicing/InvoiceNumbering.js"
import type { NumberSequence } from "../Invoicing/NumberSequence.js"
import type { Organisation } from "../Organisation.js"
import { yearOf } from "./dates.js"

/**
 * The next number of a series in this year of the organisation's calendar (by its business clock), formatted by its
 * settings. Must run inside the unit of work that writes the numbered record (see NumberSequence).
 */
export const nextNumber = (
  sequence: NumberSequence["Type"],
  organisation: Organisation,
  series: Series
): Effect.Effect<string, StorageError> =>
  Effect.gen(function* () {
    const year = yearOf(yield* today(organisation))
    const counter = yield* sequence.next(organisation.id, series, year)
    return format(organisation.settings, series, year, counter)
  })
