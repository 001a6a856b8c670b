/** Page views in memory: one organisation's visits by id. */
import { Visits } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AppendOnly from "./internal/appendOnly.js"
import type { Store } from "./internal/Store.js"

export const visits = AppendOnly.table<Visits.Visit>("visits")

export const make = (store: Store): Context.Tag.Service<typeof Visits.VisitRepository> => {
  const rows = AppendOnly.make(store, visits, "visit")
  return Visits.VisitRepository.of({
    insert: rows.insert,
    contactOfVisitor: (organisationId, visitorId) =>
      Effect.map(
        rows.latest(organisationId, (row) => row.visitor_id === visitorId && row.contact_id !== null),
        Option.flatMap((row) =>
          row.contact_id === null ? Option.none() : Option.some({ contactId: row.contact_id, at: row.created_at })
        )
      )
  })
}
