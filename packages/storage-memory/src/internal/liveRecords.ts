/**
 * What every plain resource (contacts, companies, and later deals, tasks, ...) does in memory: one
 * organisation's rows, where an archived row is kept but never read or changed again, as the
 * PostgreSQL adapter does with `archived_at`. A repository adds only its own filters and indexes.
 */
import { Errors, type Organisation, type Wire } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import {
  containsFolded,
  copy,
  copyOut,
  instant,
  newestFirst,
  type Row,
  read,
  type Slot,
  type State,
  type Store,
  slot,
  type Tenant,
  tenant,
  withTenant,
  write
} from "./Store.js"

export interface LiveRecord {
  readonly id: string
  readonly created_at: string
  readonly updated_at: string
}

/** The slot that holds the rows of `A`, by id. */
export type Table<A> = Slot<HashMap.HashMap<string, Row<A>>>

/** A new table; declare it at module level, beside the repository that owns it (see `Store.slot`). */
export const table = <A>(name: string): Table<A> => slot(name, HashMap.empty<string, Row<A>>())

export interface LiveFilter {
  readonly updatedSince?: string
  readonly q?: string
}

export interface LiveTable<A, E> {
  readonly table: Table<A>
  /** Named in the error for an id that is already taken, e.g. `contact`. */
  readonly noun: string
  /** The fields `q` looks into; none for a resource without text search. */
  readonly searchable?: (record: A) => ReadonlyArray<string | null>
  /**
   * Keeps the repository's own indexes in step with a write (`previous` is undefined on insert), or
   * refuses it. Runs inside the same atomic change, so an index never disagrees with the rows.
   */
  readonly onWrite?: (t: Tenant, record: A, previous: A | undefined) => Either.Either<Tenant, E>
  readonly onArchive?: (t: Tenant, record: A) => Tenant
}

/** The sync order: oldest change first, ties by id ascending (as PostgreSQL orders uuids). */
const oldestChangeFirst = (a: LiveRecord, b: LiveRecord): number => {
  const byTime = instant(a.updated_at) - instant(b.updated_at)
  if (byTime !== 0) return byTime
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** A cursor's key as a record both orders can compare with (only its own order's field is read). */
const keyed = (key: Wire.PageKey): LiveRecord => ({ id: key.id, created_at: key.at, updated_at: key.at })

export const make = <A extends LiveRecord, E = never>(store: Store, spec: LiveTable<A, E>) => {
  const { get: rowsOf, set: withRows } = spec.table
  const liveRow = (t: Tenant, id: string) =>
    HashMap.get(rowsOf(t), id).pipe(Option.filter((row) => row.archivedAt === null))
  const onWrite = spec.onWrite ?? ((t: Tenant) => Either.right(t))
  const liveMatching = (t: Tenant, keep: (record: A) => boolean): Array<A> => {
    const records: Array<A> = []
    for (const row of HashMap.values(rowsOf(t)))
      if (row.archivedAt === null && keep(row.record)) records.push(row.record)
    return records
  }

  // The updated tenant, or the refusal to apply the write.
  const put = (t: Tenant, record: A, previous: A | undefined) =>
    Either.map(onWrite(t, record, previous), (indexed) =>
      withRows(indexed, HashMap.set(rowsOf(indexed), record.id, { record, archivedAt: null }))
    )

  const commit = (
    state: State,
    organisationId: Organisation.OrganisationId,
    next: Either.Either<Tenant, E>
  ): readonly [Either.Either<void, E>, State] =>
    Either.isLeft(next)
      ? [Either.left(next.left), state]
      : [Either.right(undefined), withTenant(state, organisationId, next.right)]

  const get = (organisationId: Organisation.OrganisationId, id: string) =>
    read(store, (state) => Option.map(liveRow(tenant(state, organisationId), id), (row) => copyOut(row.record)))

  return {
    insert: (organisationId: Organisation.OrganisationId, input: A) =>
      Effect.flatMap(copy(input), (record) =>
        write<void, E | Errors.StorageError>(store, (state) => {
          const t = tenant(state, organisationId)
          // Archived rows keep their id, as a primary key would.
          if (HashMap.has(rowsOf(t), record.id)) {
            return [Either.left(new Errors.StorageError({ message: `duplicate ${spec.noun} id ${record.id}` })), state]
          }
          return commit(state, organisationId, put(t, record, undefined))
        })
      ),

    get,
    // Units of work are serialised by the store's lock, so the unit that reads a record already holds it.
    getForUpdate: get,

    // Like an UPDATE ... WHERE archived_at IS NULL: an archived or unknown record is left alone.
    update: (organisationId: Organisation.OrganisationId, input: A) =>
      Effect.flatMap(copy(input), (record) =>
        write<void, E | Errors.StorageError>(store, (state) => {
          const t = tenant(state, organisationId)
          const current = liveRow(t, record.id)
          if (Option.isNone(current)) return [Either.right(undefined), state]
          return commit(state, organisationId, put(t, record, current.value.record))
        })
      ),

    archive: (organisationId: Organisation.OrganisationId, id: string, at: string) =>
      write(store, (state) => {
        const t = tenant(state, organisationId)
        const current = liveRow(t, id)
        if (Option.isNone(current)) return [Either.right(false), state]
        const released = spec.onArchive === undefined ? t : spec.onArchive(t, current.value.record)
        // Archiving is a change a sync client must see (`updated_since`, `order=updated_at`).
        const record = { ...current.value.record, updated_at: at }
        return [
          Either.right(true),
          withTenant(
            state,
            organisationId,
            withRows(released, HashMap.set(rowsOf(released), id, { record, archivedAt: at }))
          )
        ]
      }),

    /**
     * `keep` is the repository's own filter, ANDed with the shared ones and the page's sync fields
     * (`updated_since`, `order`, `cursor`, `include_archived`), as the PostgreSQL adapter reads them.
     */
    list: (
      organisationId: Organisation.OrganisationId,
      filter: LiveFilter,
      page: Wire.Page,
      keep: (record: A) => boolean = () => true
    ) =>
      read(store, (state) => {
        const q = filter.q === undefined ? undefined : containsFolded(filter.q)
        const bounds = [filter.updatedSince, page.updated_since].flatMap((at) =>
          at === undefined ? [] : [instant(at)]
        )
        const since = bounds.length === 0 ? undefined : Math.max(...bounds)
        const order = page.order === "updated_at" ? oldestChangeFirst : newestFirst
        const after = page.cursor
        const rows: Array<Row<A>> = []
        for (const row of HashMap.values(rowsOf(tenant(state, organisationId)))) {
          const { record } = row
          if (
            (row.archivedAt === null || page.include_archived === true) &&
            keep(record) &&
            (since === undefined || instant(record.updated_at) >= since) &&
            (q === undefined || (spec.searchable?.(record) ?? []).some(q)) &&
            (after === undefined || order(keyed(after), record) < 0)
          )
            rows.push(row)
        }
        rows.sort((x, y) => order(x.record, y.record))
        return rows
          .slice(page.offset, page.offset + page.limit + 1)
          .map((row) =>
            page.include_archived === true
              ? { ...copyOut(row.record), archived_at: row.archivedAt }
              : copyOut(row.record)
          )
      }),

    /** Every live record `keep` accepts, in `order`, unpaged: for a repository's own queries. */
    select: (
      organisationId: Organisation.OrganisationId,
      keep: (record: A) => boolean,
      order: (x: A, y: A) => number
    ) => read(store, (state) => liveMatching(tenant(state, organisationId), keep).sort(order).map(copyOut)),

    /** The oldest live record `keep` accepts (a natural key: an email, a domain), for the upserts. */
    findBy: (organisationId: Organisation.OrganisationId, keep: (record: A) => boolean) =>
      read(store, (state) => {
        const found = liveMatching(tenant(state, organisationId), keep).sort((x, y) => newestFirst(y, x))[0]
        return found === undefined ? Option.none<A>() : Option.some(copyOut(found))
      }),

    /** The organisation holding a live record with this id, for callers that know only the id. */
    organisationOf: (id: string) =>
      read(store, (state) => {
        for (const [organisationId, t] of state.tenants) {
          if (Option.isSome(liveRow(t, id))) return Option.some(organisationId)
        }
        return Option.none<Organisation.OrganisationId>()
      }),

    countLive: (organisationId: Organisation.OrganisationId) =>
      read(store, (state) => {
        let count = 0
        for (const row of HashMap.values(rowsOf(tenant(state, organisationId)))) if (row.archivedAt === null) count++
        return count
      })
  }
}
