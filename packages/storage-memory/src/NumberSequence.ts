/** Gap-free counters in memory: one `write`, so a unit of work that fails takes its number back with its snapshot. */
import { Invoicing } from "@crm/core"
import type * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { type Store, slot, tenant, withTenant, write } from "./internal/Store.js"

/** The last number given, per series and year. */
const numberSequences = slot("number_sequences", HashMap.empty<string, number>())

// The year has no separator in it, so any series text after the first one is unambiguous.
const sequenceKey = (series: string, year: number): string => `${year}/${series}`

export const make = (store: Store): Context.Tag.Service<typeof Invoicing.NumberSequence> =>
  Invoicing.NumberSequence.of({
    next: (organisationId, series, year) =>
      write(store, (state) => {
        const t = tenant(state, organisationId)
        const key = sequenceKey(series, year)
        const next = Option.getOrElse(HashMap.get(numberSequences.get(t), key), () => 0) + 1
        return [
          Either.right(next),
          withTenant(
            state,
            organisationId,
            numberSequences.update(t, (last) => HashMap.set(last, key, next))
          )
        ]
      })
  })
