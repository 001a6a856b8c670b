/**
 * The whole database as one immutable value in one `Ref`, and the unit-of-work machinery every
 * port shares. Each port call is one `Ref.modify`; units of work are serialised by a FIFO lock.
 */
import type { Access, Idempotency, Organisation, People, Settings } from "@crm/core"
import { Errors, FifoLock } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as RedBlackTree from "effect/RedBlackTree"
import * as Ref from "effect/Ref"

export interface OrganisationRow {
  readonly organisation: Settings.Organisation
  readonly createdAt: string
}

export interface Row<A> {
  readonly record: A
  readonly archivedAt: string | null
}

/**
 * Everything one organisation owns, so isolation is structural rather than a filter: each slot's
 * value at the slot's index. Read and written only through a `Slot`.
 */
export interface Tenant {
  readonly slots: ReadonlyArray<unknown>
}

/**
 * One repository's part of every tenant (its rows, its indexes), declared beside the repository
 * that owns it, so that adding a repository does not change the tenant's shape. A slot's value is
 * immutable and `set` returns a new tenant: the state stays one value, and a unit of work's snapshot
 * still captures every slot.
 */
export interface Slot<A> {
  /** What an organisation's export calls the slot's lines (`contacts`, `contacts.emails`). */
  readonly name: string
  readonly get: (t: Tenant) => A
  readonly set: (t: Tenant, value: A) => Tenant
  readonly update: (t: Tenant, f: (value: A) => A) => Tenant
  readonly codec: SlotCodec<A>
}

/**
 * How a slot's value is written out as entries (a key and a JSON value each) and read back, for an
 * organisation's export; a value that is a `HashMap` of string keys needs none of its own.
 */
export interface SlotCodec<A> {
  readonly entries: (value: A) => Iterable<readonly [string, unknown]>
  readonly fromEntries: (entries: ReadonlyArray<readonly [string, unknown]>) => A
  /** The entry as an export without secrets writes it. */
  readonly withoutSecrets?: (entry: unknown) => unknown
}

const hashMapCodec: SlotCodec<HashMap.HashMap<string, unknown>> = {
  entries: (value) => value,
  fromEntries: (entries) => HashMap.fromIterable(entries)
}

let slotsDeclared = 0
const declared: Array<Slot<unknown>> = []

/** Every slot declared, for an organisation's export. */
export const slots = (): ReadonlyArray<Slot<unknown>> => declared

/**
 * A new slot, whose value in a tenant that never set it is `empty`, named for an export (unique).
 * Declare it once, at module level: each call takes another index for the life of the process.
 */
export function slot<V>(name: string, empty: HashMap.HashMap<string, V>): Slot<HashMap.HashMap<string, V>>
export function slot<A extends NonNullable<unknown>>(name: string, empty: A, codec: SlotCodec<A>): Slot<A>
export function slot<A extends NonNullable<unknown>>(name: string, empty: A, codec?: SlotCodec<A>): Slot<A> {
  if (declared.some((other) => other.name === name)) throw new Error(`two memory slots are named ${name}`)
  const index = slotsDeclared++
  // An index past the end, or a hole, is a slot this tenant never set.
  const get = (t: Tenant): A => (t.slots[index] ?? empty) as A
  const set = (t: Tenant, value: A): Tenant => {
    const slots = t.slots.slice()
    slots[index] = value
    return { slots }
  }
  const made: Slot<A> = {
    name,
    get,
    set,
    update: (t, f) => set(t, f(get(t))),
    codec: codec ?? (hashMapCodec as unknown as SlotCodec<A>)
  }
  declared.push(made as unknown as Slot<unknown>)
  return made
}

/**
 * The people of the store (`People.PeopleRepository`), store-wide rather than in a tenant: an
 * account belongs to every organisation it is a member of, and none of it travels with an
 * organisation's export. Each map by its primary key, with the indexes a unique column needs.
 */
export interface PeopleState {
  readonly accounts: HashMap.HashMap<string, People.AccountRecord>
  readonly accountIdsByEmail: HashMap.HashMap<string, string>
  /** By `membershipKey`. */
  readonly memberships: HashMap.HashMap<string, People.MembershipRecord>
  readonly invitations: HashMap.HashMap<string, People.InvitationRecord>
  readonly invitationIdsByHash: HashMap.HashMap<string, string>
  readonly sessions: HashMap.HashMap<string, People.SessionRecord>
  readonly sessionIdsByHash: HashMap.HashMap<string, string>
  /** By token hash. */
  readonly links: HashMap.HashMap<string, People.LinkRecord>
  /** Failure times per subject, oldest first. */
  readonly failures: HashMap.HashMap<string, ReadonlyArray<string>>
}

export const membershipKey = (organisationId: string, accountId: string): string => `${organisationId} ${accountId}`

export interface State {
  readonly organisations: HashMap.HashMap<string, OrganisationRow>
  readonly keys: HashMap.HashMap<string, Access.ApiKeyRecord>
  readonly keyIdsByHash: HashMap.HashMap<string, string>
  readonly tenants: HashMap.HashMap<Organisation.OrganisationId, Tenant>
  readonly lastEventId: bigint
  /** Admitted request times per key, oldest first. */
  readonly rateWindows: HashMap.HashMap<string, ReadonlyArray<number>>
  readonly idempotency: HashMap.HashMap<string, Idempotency.IdempotencyRecord>
  /** Published rates per currency pair, by date. Shared by every organisation. */
  readonly exchangeRates: HashMap.HashMap<string, RedBlackTree.RedBlackTree<string, string>>
  /** What every cursor is signed with; none until the first cursor is given out. */
  readonly cursorSecret: Redacted.Redacted<string> | undefined
  readonly people: PeopleState
  /** The audit trail by entry id (`People.AuditLog`): not a tenant's slot, so no export carries it. */
  readonly audit: HashMap.HashMap<string, People.AuditRecord>
  /** The authorization server's records (`Access.OAuthStore`) by model and id: the server's, no tenant's. */
  readonly oauth: HashMap.HashMap<string, Access.OAuthRecord>
}

/**
 * `committed` is the state as of the start of the running unit of work (undefined when none
 * runs): what readers outside the unit see, so they never observe work that may yet roll back.
 */
interface Db {
  readonly live: State
  readonly committed: State | undefined
}

interface Unit {
  // Cleared when the unit ends: a fiber forked inside it that outlives it must queue like anyone else.
  active: boolean
}

export interface Store {
  readonly ref: Ref.Ref<Db>
  readonly lock: FifoLock.FifoLock
  readonly currentUnit: FiberRef.FiberRef<Unit | undefined>
}

const emptyTenant: Tenant = { slots: [] }

const emptyState: State = {
  organisations: HashMap.empty(),
  keys: HashMap.empty(),
  keyIdsByHash: HashMap.empty(),
  tenants: HashMap.empty(),
  lastEventId: 0n,
  rateWindows: HashMap.empty(),
  idempotency: HashMap.empty(),
  exchangeRates: HashMap.empty(),
  cursorSecret: undefined,
  people: {
    accounts: HashMap.empty(),
    accountIdsByEmail: HashMap.empty(),
    memberships: HashMap.empty(),
    invitations: HashMap.empty(),
    invitationIdsByHash: HashMap.empty(),
    sessions: HashMap.empty(),
    sessionIdsByHash: HashMap.empty(),
    links: HashMap.empty(),
    failures: HashMap.empty()
  },
  audit: HashMap.empty(),
  oauth: HashMap.empty()
}

export const make: Effect.Effect<Store> = Effect.sync(() => ({
  ref: Ref.unsafeMake<Db>({ live: emptyState, committed: undefined }),
  lock: FifoLock.make(),
  // Joining a child fiber must never mark the parent as inside a unit of work it did not open.
  currentUnit: FiberRef.unsafeMake<Unit | undefined>(undefined, { join: (parent) => parent })
}))

const insideUnit = (unit: Unit | undefined): boolean => unit?.active === true

/** A consistent view: the unit's own work from inside it, the last committed state from outside. */
export const read = <A>(store: Store, f: (state: State) => A): Effect.Effect<A> =>
  FiberRef.getWith(store.currentUnit, (unit) =>
    Effect.map(Ref.get(store.ref), (db) => f(insideUnit(unit) ? db.live : (db.committed ?? db.live)))
  )

/**
 * One atomic change. Outside a unit of work it still waits for the lock, so that a rollback
 * (which restores a snapshot) can never erase a write made meanwhile by someone else.
 */
export const write = <A, E = never>(
  store: Store,
  f: (state: State) => readonly [Either.Either<A, E>, State]
): Effect.Effect<A, E> => {
  const apply = Effect.flatMap(
    Ref.modify(store.ref, (db): readonly [Either.Either<A, E>, Db] => {
      const [result, live] = f(db.live)
      return [result, live === db.live ? db : { live, committed: db.committed }]
    }),
    (result): Effect.Effect<A, E> => (Either.isRight(result) ? Effect.succeed(result.right) : Effect.fail(result.left))
  )
  return FiberRef.getWith(store.currentUnit, (unit) => (insideUnit(unit) ? apply : store.lock.withLock(apply)))
}

const outermost = <A, E, R>(store: Store, self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  store.lock.withLock(
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        Ref.modify(store.ref, (db): readonly [State, Db] => [db.live, { live: db.live, committed: db.live }]),
        (snapshot) => {
          const unit: Unit = { active: true }
          return restore(Effect.locally(self, store.currentUnit, unit)).pipe(
            Effect.onExit((exit) =>
              Effect.zipRight(
                Effect.sync(() => {
                  unit.active = false
                }),
                Ref.update(store.ref, (db) => ({
                  live: Exit.isSuccess(exit) ? db.live : snapshot,
                  committed: undefined
                }))
              )
            )
          )
        }
      )
    )
  )

/** A nested unit joins the enclosing one, as on PostgreSQL (see the core's `Transaction`). */
export const transaction = <A, E, R>(store: Store, self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  FiberRef.getWith(store.currentUnit, (unit) => (insideUnit(unit) ? self : outermost(store, self)))

export const tenant = (state: State, organisationId: Organisation.OrganisationId): Tenant =>
  Option.getOrElse(HashMap.get(state.tenants, organisationId), () => emptyTenant)

export const withTenant = (state: State, organisationId: Organisation.OrganisationId, next: Tenant): State => ({
  ...state,
  tenants: HashMap.set(state.tenants, organisationId, next)
})

/**
 * Values are copied on the way in and out, as a database would: a caller mutating an object it
 * passed or received must not change what is stored.
 */
export const copy = <A>(value: A): Effect.Effect<A, Errors.StorageError> =>
  Effect.try({
    try: () => structuredClone(value),
    catch: (cause) => new Errors.StorageError({ message: "value cannot be stored", cause })
  })

export const copyOut = <A>(value: A): A => structuredClone(value)

/** Timestamps compare as instants, not as text, so any valid ISO form orders correctly. */
export const instant = (iso: string): number => Date.parse(iso)

/** Newest `created_at` first; equal times by id descending, so pages are stable. */
export const newestFirst = (
  a: { readonly id: string; readonly created_at: string },
  b: { readonly id: string; readonly created_at: string }
): number => {
  const byTime = instant(b.created_at) - instant(a.created_at)
  if (byTime !== 0) return byTime
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

/** Earliest `key` first (a YYYY-MM-DD date compares as text), equal keys by id ascending. */
export const earliestFirst =
  <A extends { readonly id: string }>(key: (record: A) => string) =>
  (a: A, b: A): number => {
    const [x, y] = [key(a), key(b)]
    if (x !== y) return x < y ? -1 : 1
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  }

/** Plain case-insensitive substring: `%`, `_`, `*` and `\` are ordinary characters. */
export const containsFolded = (needle: string) => {
  const folded = needle.toLowerCase()
  return (value: string | null): boolean => value?.toLowerCase().includes(folded) === true
}
