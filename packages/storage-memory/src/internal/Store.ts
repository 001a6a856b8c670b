/**
 * The whole database as one immutable value in one `Ref`, and the unit-of-work machinery every
 * port shares. Each port call is one `Ref.modify`; units of work are serialised by a FIFO lock.
 */
import type {
  Access,
  Bookings,
  Calls,
  Companies,
  Contacts,
  Deals,
  Events,
  Forms,
  Idempotency,
  Inventory,
  Invoicing,
  Leads,
  LinkPages,
  Mail,
  Notes,
  Orders,
  PurchaseOrders,
  Quotes,
  Records,
  Returns,
  Settings,
  Sites,
  Surveys,
  Tasks,
  Tickets,
  Visits,
  Webhooks
} from "@crm/core"
import { Errors } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Order from "effect/Order"
import * as RedBlackTree from "effect/RedBlackTree"
import * as Ref from "effect/Ref"
import * as FifoLock from "./FifoLock.js"

export interface OrganisationRow {
  readonly organisation: Settings.Organisation
  readonly createdAt: string
}

export interface Row<A> {
  readonly record: A
  readonly archivedAt: string | null
}

/** Everything one organisation owns, so isolation is structural rather than a filter. */
export interface Tenant {
  readonly contacts: HashMap.HashMap<string, Row<Contacts.Contact>>
  /** Live holder of each address: the uniqueness rule, checked in O(1). */
  readonly contactEmails: HashMap.HashMap<string, string>
  readonly companies: HashMap.HashMap<string, Row<Companies.Company>>
  readonly deals: HashMap.HashMap<string, Row<Deals.Deal>>
  /** Each deal's stage visits, in the order they were recorded. */
  readonly dealVisits: HashMap.HashMap<string, ReadonlyArray<Deals.StageVisit>>
  readonly tasks: HashMap.HashMap<string, Row<Tasks.Task>>
  readonly quotes: HashMap.HashMap<string, Row<Quotes.Quote>>
  /** Each quote's frozen revisions, in the order they were recorded. */
  readonly quoteRevisions: HashMap.HashMap<string, ReadonlyArray<Quotes.QuoteRevision>>
  readonly invoices: HashMap.HashMap<string, Row<Invoicing.Invoice>>
  /** Each invoice's payments, in the order they were recorded. */
  readonly payments: HashMap.HashMap<string, ReadonlyArray<Invoicing.Payment>>
  /** The last number given, per series and year. */
  readonly numberSequences: HashMap.HashMap<string, number>
  readonly orders: HashMap.HashMap<string, Row<Orders.Order>>
  /** The order holding each `external_id`: the uniqueness rule, checked in O(1). */
  readonly orderExternalIds: HashMap.HashMap<string, string>
  readonly mail: HashMap.HashMap<string, Mail.MailMessage>
  readonly events: RedBlackTree.RedBlackTree<bigint, Events.EventEnvelope>
  readonly records: HashMap.HashMap<string, Row<Records.CustomRecord>>
  /** Form submissions and page views by id (written once, never changed). */
  readonly formSubmissions: HashMap.HashMap<string, Forms.Submission>
  readonly visits: HashMap.HashMap<string, Visits.Visit>
  /** Provider leads by provider and provider id; null while claimed by the running unit of work. */
  readonly leads: HashMap.HashMap<string, Leads.LeadReceived | null>
  readonly hooks: HashMap.HashMap<string, HookRow>
  /** The webhook outbox: one row per event and matching hook, written by the event log's `append`. */
  readonly deliveries: HashMap.HashMap<string, DeliveryRow>
  readonly tickets: HashMap.HashMap<string, Row<Tickets.TicketRecord>>
  readonly returns: HashMap.HashMap<string, Row<Returns.Return>>
  readonly purchaseOrders: HashMap.HashMap<string, Row<PurchaseOrders.PurchaseOrder>>
  readonly surveyResponses: HashMap.HashMap<string, Row<Surveys.SurveyResponse>>
  readonly calls: HashMap.HashMap<string, Row<Calls.Call>>
  readonly notes: HashMap.HashMap<string, Notes.Note>
  /** Products with their stock levels in place (`stock`, each variant's `stock`). */
  readonly products: HashMap.HashMap<string, Row<Inventory.Product>>
  /** The product holding each SKU: the uniqueness rule, checked in O(1). */
  readonly productSkus: HashMap.HashMap<string, string>
  /** Each product's stock ledger, in the order the movements were recorded. */
  readonly stockMovements: HashMap.HashMap<string, ReadonlyArray<Inventory.StockMovement>>
  readonly sites: HashMap.HashMap<string, Row<Sites.Site>>
  readonly sitePages: HashMap.HashMap<string, Row<Sites.Page>>
  readonly sitePosts: HashMap.HashMap<string, Row<Sites.Post>>
  readonly bookingSeries: HashMap.HashMap<string, Row<Bookings.Series>>
  readonly bookings: HashMap.HashMap<string, Row<Bookings.Booking>>
  readonly linkPages: HashMap.HashMap<string, Row<LinkPages.LinkPage>>
  /** Holder of each unique site value (site domain, page path and post slug per site, link page slug). */
  readonly siteKeys: HashMap.HashMap<string, string>
}

export interface HookRow {
  readonly record: Webhooks.HookRecord
  /** The dispatcher's lease (epoch ms) and who holds it. */
  readonly leaseUntil: number | null
  readonly leaseToken: string | null
}

export interface DeliveryRow {
  readonly delivery: Omit<Webhooks.Delivery, "attempts">
  readonly body: string
  readonly attempts: ReadonlyArray<Webhooks.DeliveryAttempt>
}

export interface State {
  readonly organisations: HashMap.HashMap<string, OrganisationRow>
  readonly keys: HashMap.HashMap<string, Access.ApiKeyRecord>
  readonly keyIdsByHash: HashMap.HashMap<string, string>
  readonly tenants: HashMap.HashMap<string, Tenant>
  readonly lastEventId: bigint
  /** Admitted request times per key, oldest first. */
  readonly rateWindows: HashMap.HashMap<string, ReadonlyArray<number>>
  readonly idempotency: HashMap.HashMap<string, Idempotency.IdempotencyRecord>
  /** Published rates per currency pair, by date. Shared by every organisation. */
  readonly exchangeRates: HashMap.HashMap<string, RedBlackTree.RedBlackTree<string, string>>
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

export const emptyTenant: Tenant = {
  contacts: HashMap.empty(),
  contactEmails: HashMap.empty(),
  companies: HashMap.empty(),
  deals: HashMap.empty(),
  dealVisits: HashMap.empty(),
  tasks: HashMap.empty(),
  quotes: HashMap.empty(),
  quoteRevisions: HashMap.empty(),
  invoices: HashMap.empty(),
  payments: HashMap.empty(),
  numberSequences: HashMap.empty(),
  orders: HashMap.empty(),
  orderExternalIds: HashMap.empty(),
  mail: HashMap.empty(),
  events: RedBlackTree.empty<bigint, Events.EventEnvelope>(Order.bigint),
  records: HashMap.empty(),
  formSubmissions: HashMap.empty(),
  visits: HashMap.empty(),
  leads: HashMap.empty(),
  hooks: HashMap.empty(),
  deliveries: HashMap.empty(),
  tickets: HashMap.empty(),
  returns: HashMap.empty(),
  purchaseOrders: HashMap.empty(),
  surveyResponses: HashMap.empty(),
  calls: HashMap.empty(),
  notes: HashMap.empty(),
  products: HashMap.empty(),
  productSkus: HashMap.empty(),
  stockMovements: HashMap.empty(),
  sites: HashMap.empty(),
  sitePages: HashMap.empty(),
  sitePosts: HashMap.empty(),
  bookingSeries: HashMap.empty(),
  bookings: HashMap.empty(),
  linkPages: HashMap.empty(),
  siteKeys: HashMap.empty()
}

const emptyState: State = {
  organisations: HashMap.empty(),
  keys: HashMap.empty(),
  keyIdsByHash: HashMap.empty(),
  tenants: HashMap.empty(),
  lastEventId: 0n,
  rateWindows: HashMap.empty(),
  idempotency: HashMap.empty(),
  exchangeRates: HashMap.empty()
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

export const tenant = (state: State, organisationId: string): Tenant =>
  Option.getOrElse(HashMap.get(state.tenants, organisationId), () => emptyTenant)

export const withTenant = (state: State, organisationId: string, next: Tenant): State => ({
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
