import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StorageError } from "../Errors.js"
import type { PublishedRate } from "./ExchangeRateFormats.js"

/** Central-bank rates as published, shared by every organisation. */
export class ExchangeRates extends Context.Tag("@crm/core/ExchangeRates")<
  ExchangeRates,
  {
    /** Adds the rates; a rate already stored for the same date and pair is replaced. Returns how many. */
    readonly store: (rates: ReadonlyArray<PublishedRate>) => Effect.Effect<number, StorageError>
    /** The newest rate `from` → `to` published on or before `date`. */
    readonly latest: (
      from: string,
      to: string,
      date: string
    ) => Effect.Effect<Option.Option<PublishedRate>, StorageError>
  }
>() {}
