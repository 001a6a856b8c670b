/**
 * Rows that are written once and never changed (form submissions, page views), by id in one
 * organisation; a second row with the same id is refused as a primary key would.
 */
import { Errors, type Organisation } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import {
  copy,
  copyOut,
  instant,
  read,
  type Slot,
  type Store,
  slot,
  type Tenant,
  tenant,
  withTenant,
  write
} from "./Store.js"

/** A new table of rows by id; declare it at module level, beside the repository that owns it (see `slot`). */
export const table = <A>(name: string): Slot<HashMap.HashMap<string, A>> => slot(name, HashMap.empty<string, A>())

export const make = <A extends { readonly id: string; readonly created_at: string }>(
  store: Store,
  table: Slot<HashMap.HashMap<string, A>>,
  noun: string
) => {
  const rowsOf = table.get
  const matching = (t: Tenant, keep: (row: A) => boolean): Array<A> => {
    const rows: Array<A> = []
    for (const row of HashMap.values(rowsOf(t))) if (keep(row)) rows.push(row)
    return rows
  }
  return {
    insert: (organisationId: Organisation.OrganisationId, input: A) =>
      Effect.flatMap(copy(input), (row) =>
        write<void, Errors.StorageError>(store, (state) => {
          const t = tenant(state, organisationId)
          if (HashMap.has(rowsOf(t), row.id))
            return [Either.left(new Errors.StorageError({ message: `duplicate ${noun} id ${row.id}` })), state]
          return [
            Either.right(undefined),
            withTenant(state, organisationId, table.set(t, HashMap.set(rowsOf(t), row.id, row)))
          ]
        })
      ),

    /** Every row `keep` accepts, unordered. */
    select: (organisationId: Organisation.OrganisationId, keep: (row: A) => boolean) =>
      read(store, (state) => matching(tenant(state, organisationId), keep).map(copyOut)),

    /** The newest row `keep` accepts: latest `created_at`, ties by id descending (as the SQL adapter orders). */
    latest: (organisationId: Organisation.OrganisationId, keep: (row: A) => boolean) =>
      read(store, (state) => {
        let best: A | undefined
        for (const row of matching(tenant(state, organisationId), keep)) {
          const newer =
            best === undefined ||
            instant(row.created_at) > instant(best.created_at) ||
            (instant(row.created_at) === instant(best.created_at) && row.id > best.id)
          if (newer) best = row
        }
        return Option.map(Option.fromNullable(best), copyOut)
      })
  }
}
