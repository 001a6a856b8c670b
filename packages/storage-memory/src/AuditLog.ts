/**
 * The audit trail in memory (`People.AuditLog`), store-wide (`State.audit`): an entry joins the
 * caller's unit of work like any write here, so it is rolled back with the change it records.
 */
import { Errors, People } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import { copy, copyOut, instant, read, type Store, write } from "./internal/Store.js"

const newestFirst = (a: People.AuditRecord, b: People.AuditRecord): number =>
  instant(b.at) - instant(a.at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

export const make = (store: Store): Context.Tag.Service<typeof People.AuditLog> =>
  People.AuditLog.of({
    // As the foreign key on PostgreSQL: an entry names an organisation the store holds, or none.
    append: (input) =>
      Effect.flatMap(copy(input), (entry) =>
        write(store, (state) => {
          if (entry.organisation_id !== null && !HashMap.has(state.organisations, entry.organisation_id)) {
            return [
              Either.left(
                new Errors.StorageError({ message: `no organisation ${entry.organisation_id} for an audit entry` })
              ),
              state
            ]
          }
          if (HashMap.has(state.audit, entry.id)) {
            return [Either.left(new Errors.StorageError({ message: `duplicate audit entry ${entry.id}` })), state]
          }
          return [Either.right(undefined), { ...state, audit: HashMap.set(state.audit, entry.id, entry) }]
        })
      ),

    page: (organisationId, page) =>
      read(store, (state) =>
        [...HashMap.values(state.audit)]
          .filter((entry) => entry.organisation_id === organisationId)
          .sort(newestFirst)
          .slice(page.offset, page.offset + page.limit + 1)
          .map(copyOut)
      ),

    purge: (before) =>
      write(store, (state) => {
        const cutoff = instant(before)
        const kept = HashMap.filter(state.audit, (entry) => instant(entry.at) >= cutoff)
        const purged = HashMap.size(state.audit) - HashMap.size(kept)
        return [Either.right(purged), purged === 0 ? state : { ...state, audit: kept }]
      })
  })
