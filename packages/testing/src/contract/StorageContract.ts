/**
 * The one storage contract: every adapter (memory, PGlite, a PostgreSQL server) must pass it
 * unchanged. `makeLayer` is called once per test and must give an isolated, empty store, because
 * some cases observe the whole store (organisation counts, purges, event ids).
 *
 * Cases are registered through ContractCases.ts: on the live clock, one store each. Those that run
 * several units of work at once are `concurrent` cases, which an adapter may skip by option.
 */
import { createHash } from "node:crypto"
import type { Kernel } from "@crm/core"
import {
  Access,
  Companies,
  Contacts,
  Deals,
  Errors,
  Events,
  Idempotency,
  Invoicing,
  type Pricing,
  Quotes,
  Settings,
  Tasks,
  Transaction
} from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"

export type StoragePorts = Kernel.StoragePorts

type Contact = Contacts.Contact
type Company = Companies.Company
type Organisation = Settings.Organisation
type Deal = Deals.Deal
type StageVisit = Deals.StageVisit
type Task = Tasks.Task
type Quote = Quotes.Quote
type Invoice = Invoicing.Invoice
type Payment = Invoicing.Payment

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
/** A timestamp `ms` after a fixed origin, in the wire form (UTC, milliseconds). */
export const at = (ms: number): string => new Date(T0 + ms).toISOString()
export const page = (limit: number, offset = 0) => ({ limit, offset })
export const ids = (rows: ReadonlyArray<{ readonly id: string }>): Array<string> => rows.map((row) => row.id)
export const uuid = (): string => crypto.randomUUID()

/** The order every list promises: newest `created_at` first, ties by id descending. */
export const newestFirst = <A extends { readonly id: string; readonly created_at: string }>(
  rows: ReadonlyArray<A>
): Array<A> =>
  [...rows].sort((a, b) =>
    a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0
  )

const settingsFor = (name: string): Settings.Settings => ({
  name,
  timezone: "UTC",
  default_currency: "EUR",
  payment_terms_days: 14,
  country: null,
  seller: Settings.NO_SELLER,
  numbering: Settings.DEFAULT_NUMBERING,
  plan: { read_only: false, max_contacts: null, max_companies: null },
  pipelines: [
    {
      id: uuid(),
      name: "Sales",
      stages: [
        { id: uuid(), name: "Qualified", kind: "open", required_fields: [], playbook: [] },
        { id: uuid(), name: "Won", kind: "won", required_fields: ["value"], playbook: [] },
        { id: uuid(), name: "Lost", kind: "lost", required_fields: [], playbook: [] }
      ]
    }
  ],
  record_types: [],
  forms: [],
  stock: { low_stock_threshold: 5 },
  users: []
})

const organisation = (name: string): Organisation => ({ id: uuid(), name, settings: settingsFor(name) })

const person = (overrides: Partial<Contact> = {}): Contact => ({
  id: uuid(),
  first_name: null,
  last_name: null,
  email: null,
  phone: null,
  company_id: null,
  status: "lead",
  source: null,
  custom: {},
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

const firm = (overrides: Partial<Company> = {}): Company => ({
  id: uuid(),
  name: "Acme",
  domain: null,
  email: null,
  vat_number: null,
  city: null,
  country: null,
  custom: {},
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

/** The stages of the organisation's pipeline, so that deals point at real ones. */
const stagesOf = (org: Organisation) => {
  const pipeline = org.settings.pipelines[0]!
  const [open, won, lost] = pipeline.stages
  return { pipeline: pipeline.id, open: open!.id, won: won!.id, lost: lost!.id }
}

const opportunity = (org: Organisation, overrides: Partial<Deal> = {}): Deal => ({
  id: uuid(),
  title: "Deal",
  value: null,
  currency: "EUR",
  pipeline_id: stagesOf(org).pipeline,
  status_id: stagesOf(org).open,
  status_kind: "open",
  contact_id: null,
  company_id: null,
  owner_id: null,
  expected_close_date: null,
  lost_reason: null,
  closed_at: null,
  custom: {},
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

/** The visit that records a deal's creation in its current stage; overrides make it a move. */
const visit = (deal: Deal, overrides: Partial<StageVisit> = {}): StageVisit => ({
  deal_id: deal.id,
  pipeline_id: deal.pipeline_id,
  from_status_id: null,
  status_id: deal.status_id,
  status_kind: deal.status_kind,
  entered_at: deal.created_at,
  left_at: null,
  key_id: null,
  ...overrides
})

const todo = (overrides: Partial<Task> = {}): Task => ({
  id: uuid(),
  title: "Call back",
  type: "todo",
  priority: "normal",
  due_at: null,
  done: false,
  completed_at: null,
  assignee_id: null,
  entity_type: null,
  entity_id: null,
  description: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

const line = (overrides: Partial<Pricing.Line> = {}): Pricing.Line => ({
  product_id: null,
  variant_id: null,
  name: "Consulting",
  quantity: 1,
  unit: null,
  unit_price: 100,
  vat_rate: 21,
  discount_percent: null,
  net: 100,
  vat: 21,
  gross: 121,
  ...overrides
})

/** Lines and amounts that exercise decimals and more than one VAT rate; new objects on each call. */
const pricedLines = () => ({
  items: [
    line({
      name: "Audit",
      quantity: 1234.5,
      unit: "h",
      unit_price: 0.07,
      discount_percent: 12.5,
      net: 75.61,
      vat: 15.88,
      gross: 91.49
    }),
    line({ name: 'Licence\n"pro"', quantity: -1, unit_price: 1e9, vat_rate: 0, net: -1e9, vat: 0, gross: -1e9 })
  ],
  subtotal: 1234.5,
  vat_total: 0.07,
  total: 1234.57,
  vat_summary: [
    { vat_rate: 21, net: 75.61, vat: 15.88, gross: 91.49 },
    { vat_rate: 0, net: -1e9, vat: 0, gross: -1e9 }
  ]
})

const offer = (overrides: Partial<Quote> = {}): Quote => ({
  id: uuid(),
  number: "Q2026-0001",
  status: "draft",
  revision: 0,
  currency: "EUR",
  contact_id: null,
  company_id: null,
  items: [line()],
  subtotal: 100,
  vat_total: 21,
  total: 121,
  vat_summary: [{ vat_rate: 21, net: 100, vat: 21, gross: 121 }],
  valid_until: null,
  vat_reason: null,
  note: null,
  invoice_id: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

/** A draft unless overridden: no `number` key at all. */
const bill = (overrides: Partial<Invoice> = {}): Invoice => ({
  id: uuid(),
  kind: "normal",
  status: "draft",
  issue_date: "2026-03-01",
  due_date: "2026-03-15",
  fulfilment_date: "2026-03-01",
  currency: "EUR",
  exchange_rate: null,
  contact_id: null,
  company_id: null,
  buyer: { name: null, email: null, vat_number: null, city: null, country: null },
  items: [line()],
  subtotal: 100,
  vat_total: 21,
  total: 121,
  vat_summary: [{ vat_rate: 21, net: 100, vat: 21, gross: 121 }],
  paid_amount: 0,
  vat_reason: null,
  note: null,
  quote_id: null,
  original_invoice_id: null,
  storno_invoice_id: null,
  issued_at: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

const payment = (invoice: Invoice, overrides: Partial<Payment> = {}): Payment => ({
  id: uuid(),
  invoice_id: invoice.id,
  amount: 10,
  currency: invoice.currency,
  paid_on: "2026-03-10",
  method: null,
  reference: null,
  created_at: at(0),
  ...overrides
})

const rate = (date: string, from: string, to: string, value: string): Invoicing.PublishedRate => ({
  date,
  from,
  to,
  rate: value
})

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

const apiKey = (organisationId: string, overrides: Partial<Access.ApiKeyRecord> = {}): Access.ApiKeyRecord => ({
  id: uuid(),
  organisation_id: organisationId,
  name: null,
  hash: sha256(uuid()),
  scopes: ["read", "write"],
  expires_at: null,
  allowed_ips: [],
  revoked_at: null,
  created_at: at(0),
  owner_id: null,
  ...overrides
})

/** Two organisations, so that every case can also check that the other one sees nothing. */
export const seed = Effect.gen(function* () {
  const access = yield* Access.AccessRepository
  const a = organisation("Alpha")
  const b = organisation("Beta")
  yield* access.insertOrganisation(a, at(0))
  yield* access.insertOrganisation(b, at(0))
  return { a, b }
})

const newKey = (organisationId: string) =>
  Effect.gen(function* () {
    const key = apiKey(organisationId)
    yield* (yield* Access.AccessRepository).insertKey(key)
    return key
  })

/** The refusal names the live holder of the address, so a client can link to it. */
const expectEmailTaken = (error: unknown, holder: string): void => {
  expect(error).toBeInstanceOf(Errors.EmailAlreadyExists)
  const refused = error as Errors.EmailAlreadyExists
  expect(refused.code).toBe("email_already_exists")
  expect(refused.detail).toEqual({ id: holder, message: "a live contact already has this email" })
}

class Boom extends Data.TaggedError("Boom")<{ readonly step: string }> {}

/**
 * A unit of work that read `record` for update holds it: another unit's `getForUpdate` of it
 * waits until the first commits, and then reads what the first wrote.
 */
export const expectHeldUntilCommit = <A>(
  getForUpdate: Effect.Effect<Option.Option<A>, Errors.StorageError>,
  update: Effect.Effect<void, Errors.StorageError>,
  record: A,
  changed: A
) =>
  Effect.gen(function* () {
    const tx = yield* Transaction.Transaction
    const locked = yield* Deferred.make<void>()
    const gate = yield* Deferred.make<void>()
    const first = yield* Effect.fork(
      tx.run(
        Effect.gen(function* () {
          expect(Option.getOrThrow(yield* getForUpdate)).toEqual(record)
          yield* Deferred.succeed(locked, undefined)
          yield* Deferred.await(gate)
          yield* update
        })
      )
    )
    yield* Deferred.await(locked)
    const second = yield* Effect.fork(tx.run(getForUpdate))
    // Long enough for an adapter that does not lock to have answered.
    yield* Effect.sleep("100 millis")
    expect(Option.isNone(yield* Fiber.poll(second))).toBe(true)
    yield* Deferred.succeed(gate, undefined)
    yield* Fiber.join(first)
    expect(Option.getOrThrow(yield* Fiber.join(second))).toEqual(changed)
  })

const allEvents = (organisationId: string) =>
  Effect.flatMap(Events.EventLog, (log) => log.after(organisationId, { since: 0n, event: undefined, limit: 1000 }))

const expectIncreasing = (eventIds: ReadonlyArray<string>) => {
  for (const id of eventIds) expect(id).toMatch(/^[1-9]\d*$/)
  for (let i = 1; i < eventIds.length; i++) expect(BigInt(eventIds[i]!) > BigInt(eventIds[i - 1]!)).toBe(true)
}

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`storage contract: ${name}`, () => {
    describe("ContactRepository", () => {
      test(
        "round-trips every field, and only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Contacts.ContactRepository
          const company = firm({ name: "Lee Ltd" })
          yield* (yield* Companies.CompanyRepository).insert(a.id, company)
          const ann = person({
            first_name: "Ann",
            last_name: "Lee",
            email: "ann@example.com",
            phone: "+420 123 456 789",
            company_id: company.id,
            status: "customer",
            source: "web form",
            custom: { tier: "gold", score: 3, tags: ["vip", "b2b"], nested: { ok: true, none: null } },
            created_at: at(1),
            updated_at: at(2)
          })
          const expected = structuredClone(ann)
          yield* repo.insert(a.id, ann)
          // What is stored must not alias the caller's objects, in either direction.
          ;(ann.custom as { tier: string }).tier = "changed after insert"
          const got = Option.getOrThrow(yield* repo.get(a.id, ann.id))
          expect(got).toEqual(expected)
          ;(got.custom as { tier: string }).tier = "changed after get"
          expect(Option.getOrThrow(yield* repo.get(a.id, ann.id))).toEqual(expected)

          expect(Option.isNone(yield* repo.get(b.id, ann.id))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, uuid()))).toBe(true)
          expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([ann.id])
          expect(yield* repo.countLive(a.id)).toBe(1)
          expect(yield* repo.countLive(b.id)).toBe(0)
        })
      )

      test(
        "update replaces the fields; another organisation can neither change nor see it",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Contacts.ContactRepository
          const ann = person({ first_name: "Ann", email: "ann@example.com", custom: { a: 1 } })
          yield* repo.insert(a.id, ann)
          const changed: Contact = {
            ...ann,
            first_name: "Anna",
            last_name: "Lee",
            email: null,
            phone: "123",
            status: "prospect",
            source: "import",
            custom: { b: [1, 2] },
            updated_at: at(10)
          }
          yield* repo.update(a.id, changed)
          expect(Option.getOrThrow(yield* repo.get(a.id, ann.id))).toEqual(changed)

          yield* Effect.either(repo.update(b.id, { ...changed, first_name: "Mallory" }))
          expect(Option.getOrThrow(yield* repo.get(a.id, ann.id))).toEqual(changed)
          expect(Option.isNone(yield* repo.get(b.id, ann.id))).toBe(true)
          expect(yield* repo.countLive(b.id)).toBe(0)
        })
      )

      test(
        "archive hides the contact from get, list and countLive, once, and only in its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Contacts.ContactRepository
          const ann = person({ first_name: "Ann", created_at: at(1) })
          const bob = person({ first_name: "Bob", created_at: at(2) })
          yield* repo.insert(a.id, ann)
          yield* repo.insert(a.id, bob)

          expect(yield* repo.archive(b.id, ann.id, at(5))).toBe(false)
          expect(Option.isSome(yield* repo.get(a.id, ann.id))).toBe(true)

          expect(yield* repo.archive(a.id, ann.id, at(5))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([bob.id])
          expect(ids(yield* repo.list(a.id, { q: "ann" }, page(50)))).toEqual([])
          expect(yield* repo.countLive(a.id)).toBe(1)

          expect(yield* repo.archive(a.id, ann.id, at(6))).toBe(false)
          expect(yield* repo.archive(a.id, uuid(), at(6))).toBe(false)

          // An update never brings an archived contact back.
          yield* Effect.either(repo.update(a.id, { ...ann, first_name: "Ghost", updated_at: at(7) }))
          expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
          expect(yield* repo.countLive(a.id)).toBe(1)
        })
      )

      test(
        "at most one live contact per address, and the refusal names the holder",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Contacts.ContactRepository
          const holder = person({ first_name: "Ann", email: "ann@example.com" })
          yield* repo.insert(a.id, holder)

          const second = person({ first_name: "Other Ann", email: "ann@example.com" })
          const refused = yield* Effect.flip(repo.insert(a.id, second))
          expectEmailTaken(refused, holder.id)
          expect(Option.isNone(yield* repo.get(a.id, second.id))).toBe(true)
          expect(yield* repo.countLive(a.id)).toBe(1)

          // The rule is per organisation, and a missing address never conflicts.
          yield* repo.insert(b.id, person({ email: "ann@example.com" }))
          yield* repo.insert(a.id, person({ first_name: "No mail 1" }))
          yield* repo.insert(a.id, person({ first_name: "No mail 2" }))
          expect(yield* repo.countLive(a.id)).toBe(3)
          expect(yield* repo.countLive(b.id)).toBe(1)
        })
      )

      test(
        "archiving frees the address for a new contact",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Contacts.ContactRepository
          const first = person({ email: "ann@example.com" })
          yield* repo.insert(a.id, first)
          expect(yield* repo.archive(a.id, first.id, at(1))).toBe(true)
          const next = person({ email: "ann@example.com", created_at: at(2), updated_at: at(2) })
          yield* repo.insert(a.id, next)
          expect(Option.getOrThrow(yield* repo.get(a.id, next.id))).toEqual(next)
          expect(ids(yield* repo.list(a.id, { email: "ann@example.com" }, page(50)))).toEqual([next.id])
        })
      )

      test(
        "an update to an address held by another live contact is refused; keeping or leaving one's own is not",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Contacts.ContactRepository
          const x = person({ first_name: "X", email: "x@example.com" })
          const y = person({ first_name: "Y", email: "y@example.com" })
          yield* repo.insert(a.id, x)
          yield* repo.insert(a.id, y)

          const refused = yield* Effect.flip(repo.update(a.id, { ...y, email: "x@example.com", updated_at: at(1) }))
          expectEmailTaken(refused, x.id)
          expect(Option.getOrThrow(yield* repo.get(a.id, y.id))).toEqual(y)

          const renamed = { ...x, first_name: "Xavier", updated_at: at(2) }
          yield* repo.update(a.id, renamed)
          expect(Option.getOrThrow(yield* repo.get(a.id, x.id))).toEqual(renamed)

          // Moving to a new address frees the old one.
          yield* repo.update(a.id, { ...y, email: "z@example.com", updated_at: at(3) })
          yield* repo.insert(a.id, person({ email: "y@example.com" }))
          const stillTaken = yield* Effect.flip(repo.insert(a.id, person({ email: "z@example.com" })))
          expectEmailTaken(stillTaken, y.id)
        })
      )

      test(
        "list filters: exact email, status, updated_since (inclusive), q over each field, all combined",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Contacts.ContactRepository
          const ann = person({
            first_name: "Ann",
            last_name: "Smith",
            email: "ann@example.com",
            phone: "+1 555 0100",
            status: "lead",
            created_at: at(1),
            updated_at: at(100)
          })
          const joann = person({
            first_name: "Joann",
            last_name: "Brown",
            email: "joann@example.com",
            phone: "+1 555 0200",
            status: "customer",
            created_at: at(2),
            updated_at: at(200)
          })
          const bob = person({
            first_name: "Bob",
            last_name: "Annable",
            email: "bob@other.org",
            status: "customer",
            created_at: at(3),
            updated_at: at(300)
          })
          const carl = person({
            email: "carl@x.io",
            phone: "+420 999 888",
            status: "prospect",
            created_at: at(4),
            updated_at: at(400)
          })
          const annie = person({
            first_name: "Annie",
            email: "annie@example.com",
            status: "customer",
            created_at: at(5),
            updated_at: at(500)
          })
          for (const contact of [ann, joann, bob, carl, annie]) yield* repo.insert(a.id, contact)
          yield* repo.insert(
            b.id,
            person({ first_name: "Ann", email: "ann@example.com", status: "customer", created_at: at(6) })
          )
          expect(yield* repo.archive(a.id, annie.id, at(600))).toBe(true)

          const list = (filter: Contacts.ContactFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* list({})).toEqual(ids([carl, bob, joann, ann]))
          expect(yield* list({ email: "ann@example.com" })).toEqual([ann.id])
          expect(yield* list({ email: "annie@example.com" })).toEqual([])
          expect(yield* list({ email: "nobody@example.com" })).toEqual([])
          expect(yield* list({ status: "customer" })).toEqual(ids([bob, joann]))
          expect(yield* list({ status: "inactive" })).toEqual([])
          expect(yield* list({ updatedSince: at(200) })).toEqual(ids([carl, bob, joann]))
          expect(yield* list({ updatedSince: at(201) })).toEqual(ids([carl, bob]))
          expect(yield* list({ updatedSince: at(401) })).toEqual([])
          expect(yield* list({ q: "ann" })).toEqual(ids([bob, joann, ann]))
          expect(yield* list({ q: "ANN" })).toEqual(ids([bob, joann, ann]))
          expect(yield* list({ q: "smith" })).toEqual([ann.id])
          expect(yield* list({ q: "@EXAMPLE.com" })).toEqual(ids([joann, ann]))
          expect(yield* list({ q: "999 8" })).toEqual([carl.id])
          expect(yield* list({ q: "555" })).toEqual(ids([joann, ann]))
          expect(yield* list({ q: "nothing like it" })).toEqual([])
          expect(yield* list({ status: "customer", q: "ann" })).toEqual(ids([bob, joann]))
          expect(yield* list({ status: "customer", q: "ann", updatedSince: at(250) })).toEqual([bob.id])
          expect(yield* list({ email: "ann@example.com", status: "customer" })).toEqual([])
          expect(
            yield* list({ email: "joann@example.com", status: "customer", updatedSince: at(200), q: "brown" })
          ).toEqual([joann.id])
        })
      )

      test(
        "q matches %, _, * and \\ literally",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Contacts.ContactRepository
          const names = ["100% sure", "1000 sure", "a_b", "axb", "star*", "starry", "back\\slash", "backslash"]
          const byName = new Map<string, string>()
          for (const [i, first_name] of names.entries()) {
            const contact = person({ first_name, created_at: at(i) })
            byName.set(first_name, contact.id)
            yield* repo.insert(a.id, contact)
          }
          const q = (text: string) =>
            Effect.map(repo.list(a.id, { q: text }, page(50)), (rows) => rows.map((row) => row.first_name).sort())
          expect(yield* q("%")).toEqual(["100% sure"])
          expect(yield* q("0% s")).toEqual(["100% sure"])
          expect(yield* q("_")).toEqual(["a_b"])
          expect(yield* q("a_b")).toEqual(["a_b"])
          expect(yield* q("*")).toEqual(["star*"])
          expect(yield* q("r*")).toEqual(["star*"])
          expect(yield* q("\\")).toEqual(["back\\slash"])
          expect(yield* q("k\\s")).toEqual(["back\\slash"])
          expect(yield* q("%%")).toEqual([])
        })
      )

      test(
        "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Contacts.ContactRepository
          const times = [0, 10, 10, 10, 20, 30, 30, 10]
          const contacts = times.map((t, i) =>
            person({ first_name: `P${i}`, created_at: at(t), updated_at: at(100 - t) })
          )
          for (const contact of contacts) yield* repo.insert(a.id, contact)
          const expected = ids(newestFirst(contacts))

          expect(ids(yield* repo.list(a.id, {}, page(100)))).toEqual(expected)
          expect(ids(yield* repo.list(a.id, {}, page(3)))).toEqual(expected.slice(0, 4))
          expect(ids(yield* repo.list(a.id, {}, page(3, 3)))).toEqual(expected.slice(3, 7))
          expect(ids(yield* repo.list(a.id, {}, page(3, 6)))).toEqual(expected.slice(6, 8))
          expect(ids(yield* repo.list(a.id, {}, page(3, 8)))).toEqual([])
          expect(ids(yield* repo.list(a.id, {}, page(1, 7)))).toEqual(expected.slice(7))
          expect(ids(yield* repo.list(a.id, {}, page(8)))).toEqual(expected)

          // Walking the pages as a client does visits every contact exactly once, in order.
          const walked: Array<string> = []
          for (let offset = 0; ; offset += 2) {
            const rows = yield* repo.list(a.id, {}, page(2, offset))
            walked.push(...ids(rows.slice(0, 2)))
            if (rows.length <= 2) break
          }
          expect(walked).toEqual(expected)
        })
      )
    })

    describe("CompanyRepository", () => {
      test(
        "round-trips every field, and only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Companies.CompanyRepository
          const acme = firm({
            name: "Acme s.r.o.",
            domain: "acme.cz",
            email: "info@acme.cz",
            vat_number: "CZ12345678",
            city: "Brno",
            country: "CZ",
            custom: { segment: "smb", employees: 12, nested: { list: [1, "two"] } },
            created_at: at(1),
            updated_at: at(2)
          })
          const expected = structuredClone(acme)
          yield* repo.insert(a.id, acme)
          ;(acme.custom as { segment: string }).segment = "changed after insert"
          expect(Option.getOrThrow(yield* repo.get(a.id, acme.id))).toEqual(expected)
          expect(Option.isNone(yield* repo.get(b.id, acme.id))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, uuid()))).toBe(true)
          expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
          expect(yield* repo.countLive(a.id)).toBe(1)
          expect(yield* repo.countLive(b.id)).toBe(0)
        })
      )

      test(
        "update, archive and isolation between organisations",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Companies.CompanyRepository
          const acme = firm({ name: "Acme", created_at: at(1) })
          const globex = firm({ name: "Globex", created_at: at(2) })
          yield* repo.insert(a.id, acme)
          yield* repo.insert(a.id, globex)

          const changed = {
            ...acme,
            name: "Acme Group",
            domain: "acme.com",
            city: "Praha",
            custom: { x: true },
            updated_at: at(10)
          }
          yield* repo.update(a.id, changed)
          expect(Option.getOrThrow(yield* repo.get(a.id, acme.id))).toEqual(changed)
          yield* Effect.either(repo.update(b.id, { ...changed, name: "Hijacked" }))
          expect(Option.getOrThrow(yield* repo.get(a.id, acme.id))).toEqual(changed)
          expect(Option.isNone(yield* repo.get(b.id, acme.id))).toBe(true)

          expect(yield* repo.archive(b.id, acme.id, at(20))).toBe(false)
          expect(yield* repo.archive(a.id, acme.id, at(20))).toBe(true)
          expect(yield* repo.archive(a.id, acme.id, at(21))).toBe(false)
          expect(yield* repo.archive(a.id, uuid(), at(21))).toBe(false)
          expect(Option.isNone(yield* repo.get(a.id, acme.id))).toBe(true)
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([globex.id])
          expect(yield* repo.countLive(a.id)).toBe(1)
          yield* Effect.either(repo.update(a.id, { ...changed, name: "Ghost" }))
          expect(Option.isNone(yield* repo.get(a.id, acme.id))).toBe(true)
        })
      )

      test(
        "list filters: q over name, domain and email (literal %, _, *, \\), updated_since inclusive",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Companies.CompanyRepository
          const acme = firm({
            name: "Acme",
            domain: "acme.cz",
            email: "info@acme.cz",
            created_at: at(1),
            updated_at: at(100)
          })
          const beta = firm({
            name: "Beta_Works",
            domain: "beta.io",
            email: "hello@zeta.io",
            created_at: at(2),
            updated_at: at(200)
          })
          const gamma = firm({
            name: "Gamma 100%",
            domain: null,
            email: "info@acme.cz",
            created_at: at(3),
            updated_at: at(300)
          })
          const delta = firm({ name: "Delta*", domain: "d\\x.org", created_at: at(4), updated_at: at(400) })
          const gone = firm({ name: "Acme Old", created_at: at(5), updated_at: at(500) })
          // Companies carry no uniqueness rule on email: acme and gamma share one.
          for (const company of [acme, beta, gamma, delta, gone]) yield* repo.insert(a.id, company)
          yield* repo.insert(b.id, firm({ name: "Acme", created_at: at(6) }))
          expect(yield* repo.archive(a.id, gone.id, at(600))).toBe(true)

          const list = (filter: Companies.CompanyFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* list({})).toEqual(ids([delta, gamma, beta, acme]))
          expect(yield* list({ q: "acme" })).toEqual(ids([gamma, acme]))
          expect(yield* list({ q: "ACME.CZ" })).toEqual(ids([gamma, acme]))
          expect(yield* list({ q: "beta.io" })).toEqual([beta.id])
          expect(yield* list({ q: "zeta" })).toEqual([beta.id])
          expect(yield* list({ q: "gamma" })).toEqual([gamma.id])
          expect(yield* list({ q: "%" })).toEqual([gamma.id])
          expect(yield* list({ q: "_" })).toEqual([beta.id])
          expect(yield* list({ q: "a_w" })).toEqual([beta.id])
          expect(yield* list({ q: "*" })).toEqual([delta.id])
          expect(yield* list({ q: "\\" })).toEqual([delta.id])
          expect(yield* list({ updatedSince: at(200) })).toEqual(ids([delta, gamma, beta]))
          expect(yield* list({ updatedSince: at(201) })).toEqual(ids([delta, gamma]))
          expect(yield* list({ updatedSince: at(250), q: "acme" })).toEqual([gamma.id])
        })
      )

      test(
        "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Companies.CompanyRepository
          const companies = [5, 5, 5, 1, 9, 5].map((t, i) => firm({ name: `C${i}`, created_at: at(t) }))
          for (const company of companies) yield* repo.insert(a.id, company)
          const expected = ids(newestFirst(companies))
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
          expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
          expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
          expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
          expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
        })
      )
    })

    describe("DealRepository", () => {
      test(
        "round-trips every field (decimal and null values, date-only close date), and only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Deals.DealRepository
          const stages = stagesOf(a)
          const full = opportunity(a, {
            title: "Rollout 2027",
            value: 1234.5,
            currency: "CZK",
            status_id: stages.lost,
            status_kind: "lost",
            contact_id: uuid(),
            company_id: uuid(),
            owner_id: uuid(),
            expected_close_date: "2026-12-31",
            lost_reason: "went with a competitor",
            closed_at: at(3),
            custom: { source: "fair", seats: 40, tags: ["b2b"], nested: { ok: true, none: null } },
            created_at: at(1),
            updated_at: at(2)
          })
          const bare = opportunity(a, { title: "Bare", created_at: at(4), updated_at: at(4) })
          const expected = structuredClone(full)
          yield* repo.insert(a.id, full)
          yield* repo.insert(a.id, bare)
          // What is stored must not alias the caller's objects, in either direction.
          ;(full.custom as { source: string }).source = "changed after insert"
          const got = Option.getOrThrow(yield* repo.get(a.id, full.id))
          expect(got).toEqual(expected)
          ;(got.custom as { source: string }).source = "changed after get"
          expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(expected)
          expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(expected)
          expect(Option.getOrThrow(yield* repo.get(a.id, bare.id))).toEqual(bare)
          expect(yield* repo.list(a.id, {}, page(50))).toEqual([bare, expected])

          // Values are exact, whatever their size or decimals; dates stay the calendar day they were.
          const edges = [
            opportunity(a, { value: 0, expected_close_date: "2026-01-01" }),
            opportunity(a, { value: 0.07, expected_close_date: "2027-06-30" }),
            opportunity(a, { value: 99_999_999.99, expected_close_date: "1999-12-31" }),
            opportunity(a, { value: 1e15, expected_close_date: "2100-02-28" })
          ]
          for (const deal of edges) yield* repo.insert(a.id, deal)
          for (const deal of edges) expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(deal)

          expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)
          expect(Option.isNone(yield* repo.getForUpdate(b.id, full.id))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, uuid()))).toBe(true)
          expect(Option.isNone(yield* repo.getForUpdate(a.id, uuid()))).toBe(true)
          expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
        })
      )

      test(
        "update replaces the fields; archive hides the deal from get, getForUpdate and list; neither crosses organisations",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Deals.DealRepository
          const stages = stagesOf(a)
          const deal = opportunity(a, { title: "Rollout", value: 10, created_at: at(1), updated_at: at(1) })
          const other = opportunity(a, { title: "Other", created_at: at(2), updated_at: at(2) })
          yield* repo.insert(a.id, deal)
          yield* repo.insert(a.id, other)

          const won: Deal = {
            ...deal,
            title: "Rollout, signed",
            value: 2500.25,
            currency: "USD",
            status_id: stages.won,
            status_kind: "won",
            contact_id: uuid(),
            company_id: uuid(),
            owner_id: uuid(),
            expected_close_date: "2026-03-15",
            lost_reason: "kept from an earlier loss",
            closed_at: at(10),
            custom: { po: "PO-7" },
            updated_at: at(10)
          }
          yield* repo.update(a.id, won)
          expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(won)
          // Clearing goes back to nulls.
          const reopened: Deal = {
            ...won,
            value: null,
            status_id: stages.open,
            status_kind: "open",
            contact_id: null,
            company_id: null,
            owner_id: null,
            expected_close_date: null,
            lost_reason: null,
            closed_at: null,
            custom: {},
            updated_at: at(11)
          }
          yield* repo.update(a.id, reopened)
          expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(reopened)

          yield* Effect.either(repo.update(b.id, { ...reopened, title: "Hijacked" }))
          expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(reopened)
          expect(yield* repo.archive(b.id, deal.id, at(20))).toBe(false)
          expect(Option.isSome(yield* repo.get(a.id, deal.id))).toBe(true)

          expect(yield* repo.archive(a.id, deal.id, at(20))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, deal.id))).toBe(true)
          expect(Option.isNone(yield* repo.getForUpdate(a.id, deal.id))).toBe(true)
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([other.id])
          expect(ids(yield* repo.list(a.id, { statusKind: "open" }, page(50)))).toEqual([other.id])
          expect(yield* repo.archive(a.id, deal.id, at(21))).toBe(false)
          expect(yield* repo.archive(a.id, uuid(), at(21))).toBe(false)

          // An update never brings an archived deal back.
          yield* Effect.either(repo.update(a.id, { ...reopened, title: "Ghost", updated_at: at(22) }))
          expect(Option.isNone(yield* repo.get(a.id, deal.id))).toBe(true)
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([other.id])
        })
      )

      test(
        "list filters: status_kind, contact_id, company_id, pipeline_id, each alone and combined",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Deals.DealRepository
          const stages = stagesOf(a)
          const [ann, bob, acme] = [uuid(), uuid(), uuid()]
          const otherPipeline = uuid()
          const open1 = opportunity(a, { contact_id: ann, company_id: acme, created_at: at(1) })
          const open2 = opportunity(a, { contact_id: bob, created_at: at(2) })
          const won = opportunity(a, {
            status_id: stages.won,
            status_kind: "won",
            contact_id: ann,
            closed_at: at(30),
            created_at: at(3)
          })
          const lost = opportunity(a, {
            status_id: stages.lost,
            status_kind: "lost",
            company_id: acme,
            closed_at: at(40),
            created_at: at(4)
          })
          const elsewhere = opportunity(a, {
            pipeline_id: otherPipeline,
            status_id: uuid(),
            contact_id: ann,
            company_id: acme,
            created_at: at(5)
          })
          const gone = opportunity(a, { contact_id: ann, company_id: acme, created_at: at(6) })
          for (const deal of [open1, open2, won, lost, elsewhere, gone]) yield* repo.insert(a.id, deal)
          yield* repo.insert(b.id, opportunity(b, { contact_id: ann, company_id: acme, created_at: at(7) }))
          expect(yield* repo.archive(a.id, gone.id, at(60))).toBe(true)

          const list = (filter: Deals.DealFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* list({})).toEqual(ids([elsewhere, lost, won, open2, open1]))
          expect(yield* list({ statusKind: "open" })).toEqual(ids([elsewhere, open2, open1]))
          expect(yield* list({ statusKind: "won" })).toEqual([won.id])
          expect(yield* list({ statusKind: "lost" })).toEqual([lost.id])
          expect(yield* list({ contactId: ann })).toEqual(ids([elsewhere, won, open1]))
          expect(yield* list({ contactId: bob })).toEqual([open2.id])
          expect(yield* list({ contactId: uuid() })).toEqual([])
          expect(yield* list({ companyId: acme })).toEqual(ids([elsewhere, lost, open1]))
          expect(yield* list({ pipelineId: stages.pipeline })).toEqual(ids([lost, won, open2, open1]))
          expect(yield* list({ pipelineId: otherPipeline })).toEqual([elsewhere.id])
          expect(yield* list({ statusKind: "open", contactId: ann })).toEqual(ids([elsewhere, open1]))
          expect(yield* list({ statusKind: "open", contactId: ann, pipelineId: stages.pipeline })).toEqual([open1.id])
          expect(yield* list({ contactId: ann, companyId: acme })).toEqual(ids([elsewhere, open1]))
          expect(
            yield* list({ statusKind: "lost", companyId: acme, contactId: ann, pipelineId: stages.pipeline })
          ).toEqual([])
        })
      )

      test(
        "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Deals.DealRepository
          const deals = [5, 5, 5, 1, 9, 5].map((t, i) => opportunity(a, { title: `D${i}`, created_at: at(t) }))
          for (const deal of deals) yield* repo.insert(a.id, deal)
          const expected = ids(newestFirst(deals))
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
          expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
          expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
          expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
          expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
          expect(ids(yield* repo.list(a.id, { statusKind: "open" }, page(3, 1)))).toEqual(expected.slice(1, 5))
        })
      )

      test(
        "enterStage closes the open visit where the next begins; history is the deal's visits, oldest first",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Deals.DealRepository
          const stages = stagesOf(a)
          const [creator, mover] = [uuid(), uuid()]
          const deal = opportunity(a, { created_at: at(10), updated_at: at(10) })
          const neighbour = opportunity(a, { created_at: at(15), updated_at: at(15) })
          yield* repo.insert(a.id, deal)
          yield* repo.insert(a.id, neighbour)

          const created = visit(deal, { key_id: creator })
          yield* repo.enterStage(a.id, created)
          yield* repo.enterStage(a.id, visit(neighbour))
          expect(yield* repo.history(a.id, deal.id)).toEqual([created])

          const lost = visit(deal, {
            from_status_id: stages.open,
            status_id: stages.lost,
            status_kind: "lost",
            entered_at: at(20),
            key_id: mover
          })
          const won = visit(deal, {
            from_status_id: stages.lost,
            status_id: stages.won,
            status_kind: "won",
            entered_at: at(30)
          })
          yield* repo.enterStage(a.id, lost)
          yield* repo.enterStage(a.id, won)

          const history = yield* repo.history(a.id, deal.id)
          expect(history).toEqual([{ ...created, left_at: at(20) }, { ...lost, left_at: at(30) }, won])
          expect(history.filter((stay) => stay.left_at === null)).toHaveLength(1)

          // Only that deal's visits, and only in its organisation.
          expect(yield* repo.history(a.id, neighbour.id)).toEqual([visit(neighbour)])
          expect(yield* repo.history(b.id, deal.id)).toEqual([])
          expect(yield* repo.history(a.id, uuid())).toEqual([])
          const foreign = visit(deal, { status_id: uuid(), entered_at: at(40) })
          yield* repo.enterStage(b.id, foreign)
          expect(yield* repo.history(a.id, deal.id)).toEqual(history)
          expect(yield* repo.history(b.id, deal.id)).toEqual([foreign])
        })
      )

      test(
        "history keeps the order of recording between visits entered at the same instant",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Deals.DealRepository
          const stages = stagesOf(a)
          const deal = opportunity(a, { created_at: at(5) })
          yield* repo.insert(a.id, deal)
          const created = visit(deal)
          const won = visit(deal, {
            from_status_id: stages.open,
            status_id: stages.won,
            status_kind: "won",
            entered_at: at(5)
          })
          const lost = visit(deal, {
            from_status_id: stages.won,
            status_id: stages.lost,
            status_kind: "lost",
            entered_at: at(5)
          })
          for (const stay of [created, won, lost]) yield* repo.enterStage(a.id, stay)
          expect(yield* repo.history(a.id, deal.id)).toEqual([
            { ...created, left_at: at(5) },
            { ...won, left_at: at(5) },
            lost
          ])
        })
      )

      concurrent(
        "getForUpdate in a unit of work holds the deal until the unit commits",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Deals.DealRepository
          const deal = opportunity(a, { title: "Contended", value: 100 })
          yield* repo.insert(a.id, deal)
          const changed = { ...deal, title: "Changed by the first unit", value: 200, updated_at: at(1) }
          yield* expectHeldUntilCommit(repo.getForUpdate(a.id, deal.id), repo.update(a.id, changed), deal, changed)
          expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(changed)
        })
      )

      test(
        "countByStage: how many live deals stand in each stage asked about, only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Deals.DealRepository
          const stages = stagesOf(a)
          const won = { status_id: stages.won, status_kind: "won" as const }
          const archived = opportunity(a, won)
          const lost = opportunity(a, { status_id: stages.lost, status_kind: "lost" })
          for (const deal of [opportunity(a), opportunity(a), opportunity(a, won), lost, archived]) {
            yield* repo.insert(a.id, deal)
          }
          yield* repo.archive(a.id, archived.id, at(1))
          // Another organisation's deal never counts, whatever stage id it holds.
          yield* repo.insert(b.id, opportunity(a, won))
          const counts = yield* repo.countByStage(a.id, [stages.open, stages.won, uuid()])
          expect([...counts].sort((x, y) => (x.status_id < y.status_id ? -1 : 1))).toEqual(
            [
              { status_id: stages.open, deals: 2 },
              { status_id: stages.won, deals: 1 }
            ].sort((x, y) => (x.status_id < y.status_id ? -1 : 1))
          )
          expect(yield* repo.countByStage(a.id, [])).toEqual([])
          expect(yield* repo.countByStage(uuid(), [stages.open])).toEqual([])
        })
      )
    })

    describe("TaskRepository", () => {
      test(
        "round-trips every field, and only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Tasks.TaskRepository
          const full = todo({
            title: "Send the offer",
            type: "email",
            priority: "urgent",
            due_at: at(86_400_000),
            done: true,
            completed_at: at(5),
            assignee_id: uuid(),
            entity_type: "deal",
            entity_id: uuid(),
            description: "with the volume discount\nand the SLA",
            created_at: at(1),
            updated_at: at(5)
          })
          const bare = todo({ created_at: at(2), updated_at: at(2) })
          yield* repo.insert(a.id, full)
          yield* repo.insert(a.id, bare)
          expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(full)
          expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(full)
          expect(Option.getOrThrow(yield* repo.get(a.id, bare.id))).toEqual(bare)
          expect(yield* repo.list(a.id, {}, page(50))).toEqual([bare, full])

          expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)
          expect(Option.isNone(yield* repo.getForUpdate(b.id, full.id))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, uuid()))).toBe(true)
          expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
        })
      )

      test(
        "update replaces the fields; archive hides the task from get, getForUpdate and list; neither crosses organisations",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Tasks.TaskRepository
          const task = todo({ title: "Call Ann", created_at: at(1), updated_at: at(1) })
          const other = todo({ title: "Other", created_at: at(2), updated_at: at(2) })
          yield* repo.insert(a.id, task)
          yield* repo.insert(a.id, other)

          const completed: Task = {
            ...task,
            title: "Call Ann about the renewal",
            type: "call",
            priority: "high",
            due_at: at(100),
            done: true,
            completed_at: at(50),
            assignee_id: uuid(),
            entity_type: "contact",
            entity_id: uuid(),
            description: "she prefers mornings",
            updated_at: at(50)
          }
          yield* repo.update(a.id, completed)
          expect(Option.getOrThrow(yield* repo.get(a.id, task.id))).toEqual(completed)
          const reopened: Task = { ...completed, done: false, due_at: null, entity_type: null, entity_id: null }
          yield* repo.update(a.id, reopened)
          expect(Option.getOrThrow(yield* repo.get(a.id, task.id))).toEqual(reopened)

          yield* Effect.either(repo.update(b.id, { ...reopened, title: "Hijacked" }))
          expect(Option.getOrThrow(yield* repo.get(a.id, task.id))).toEqual(reopened)
          expect(yield* repo.archive(b.id, task.id, at(60))).toBe(false)

          expect(yield* repo.archive(a.id, task.id, at(60))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, task.id))).toBe(true)
          expect(Option.isNone(yield* repo.getForUpdate(a.id, task.id))).toBe(true)
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([other.id])
          expect(yield* repo.archive(a.id, task.id, at(61))).toBe(false)
          expect(yield* repo.archive(a.id, uuid(), at(61))).toBe(false)

          yield* Effect.either(repo.update(a.id, { ...reopened, title: "Ghost", updated_at: at(62) }))
          expect(Option.isNone(yield* repo.get(a.id, task.id))).toBe(true)
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([other.id])
        })
      )

      test(
        "list filters: done, priority, assignee_id, entity_id, each alone and combined",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Tasks.TaskRepository
          const [eve, max, deal, contact] = [uuid(), uuid(), uuid(), uuid()]
          const t1 = todo({ assignee_id: eve, entity_type: "deal", entity_id: deal, created_at: at(1) })
          const t2 = todo({
            priority: "high",
            assignee_id: max,
            entity_type: "deal",
            entity_id: deal,
            created_at: at(2)
          })
          const t3 = todo({
            priority: "high",
            done: true,
            completed_at: at(30),
            assignee_id: eve,
            entity_type: "contact",
            entity_id: contact,
            created_at: at(3)
          })
          const t4 = todo({ priority: "low", done: true, completed_at: at(40), created_at: at(4) })
          const gone = todo({ assignee_id: eve, entity_type: "deal", entity_id: deal, created_at: at(5) })
          for (const task of [t1, t2, t3, t4, gone]) yield* repo.insert(a.id, task)
          yield* repo.insert(b.id, todo({ assignee_id: eve, entity_type: "deal", entity_id: deal, created_at: at(6) }))
          expect(yield* repo.archive(a.id, gone.id, at(50))).toBe(true)

          const list = (filter: Tasks.TaskFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* list({})).toEqual(ids([t4, t3, t2, t1]))
          expect(yield* list({ done: false })).toEqual(ids([t2, t1]))
          expect(yield* list({ done: true })).toEqual(ids([t4, t3]))
          expect(yield* list({ priority: "high" })).toEqual(ids([t3, t2]))
          expect(yield* list({ priority: "normal" })).toEqual([t1.id])
          expect(yield* list({ priority: "urgent" })).toEqual([])
          expect(yield* list({ assigneeId: eve })).toEqual(ids([t3, t1]))
          expect(yield* list({ assigneeId: uuid() })).toEqual([])
          expect(yield* list({ entityId: deal })).toEqual(ids([t2, t1]))
          expect(yield* list({ entityId: contact })).toEqual([t3.id])
          expect(yield* list({ done: false, priority: "high" })).toEqual([t2.id])
          expect(yield* list({ done: true, assigneeId: eve })).toEqual([t3.id])
          expect(yield* list({ entityId: deal, assigneeId: eve, done: false, priority: "normal" })).toEqual([t1.id])
          expect(yield* list({ entityId: deal, assigneeId: eve, done: true })).toEqual([])
        })
      )

      test(
        "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Tasks.TaskRepository
          const tasks = [3, 7, 3, 3, 0, 7].map((t, i) => todo({ title: `T${i}`, created_at: at(t) }))
          for (const task of tasks) yield* repo.insert(a.id, task)
          const expected = ids(newestFirst(tasks))
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
          expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
          expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
          expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
          expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
          expect(ids(yield* repo.list(a.id, { done: false }, page(3, 1)))).toEqual(expected.slice(1, 5))
        })
      )

      concurrent(
        "getForUpdate in a unit of work holds the task until the unit commits",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Tasks.TaskRepository
          const task = todo({ title: "Contended" })
          yield* repo.insert(a.id, task)
          const completed = { ...task, done: true, completed_at: at(1), updated_at: at(1) }
          yield* expectHeldUntilCommit(repo.getForUpdate(a.id, task.id), repo.update(a.id, completed), task, completed)
          expect(Option.getOrThrow(yield* repo.get(a.id, task.id))).toEqual(completed)
        })
      )
    })

    describe("QuoteRepository", () => {
      test(
        "round-trips every field (decimals, date-only validity, lines and VAT summary as JSON), and only within its organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Quotes.QuoteRepository
          const full = offer({
            number: "NAB2026-0042",
            status: "accepted",
            revision: 3,
            currency: "CZK",
            contact_id: uuid(),
            company_id: uuid(),
            ...pricedLines(),
            valid_until: "2026-12-31",
            vat_reason: "reverse charge",
            note: "valid for\nthirty days",
            invoice_id: uuid(),
            created_at: at(1),
            updated_at: at(2)
          })
          const bare = offer({ created_at: at(3), updated_at: at(3) })
          const expected = structuredClone(full)
          yield* repo.insert(a.id, full)
          yield* repo.insert(a.id, bare)
          // What is stored must not alias the caller's objects, in either direction.
          full.items[0]!.name = "changed after insert"
          const got = Option.getOrThrow(yield* repo.get(a.id, full.id))
          expect(got).toEqual(expected)
          got.items[0]!.name = "changed after get"
          expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(expected)
          expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(expected)
          expect(Option.getOrThrow(yield* repo.get(a.id, bare.id))).toEqual(bare)
          expect(yield* repo.list(a.id, {}, page(50))).toEqual([bare, expected])

          // Amounts are exact, whatever their size or decimals; dates stay the calendar day they were.
          const edges = [
            offer({ total: 0, subtotal: 0, vat_total: 0, valid_until: "2026-01-01" }),
            offer({ total: 0.07, subtotal: 1234.5, vat_total: -0.01, valid_until: "2027-06-30" }),
            offer({ total: 99_999_999.99, valid_until: "1999-12-31" }),
            offer({ total: 1e15, valid_until: "2100-02-28" })
          ]
          for (const quote of edges) yield* repo.insert(a.id, quote)
          for (const quote of edges) expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(quote)

          expect(Option.getOrThrow(yield* repo.organisationOf(full.id))).toBe(a.id)
          expect(Option.isNone(yield* repo.organisationOf(uuid()))).toBe(true)
          expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)
          expect(Option.isNone(yield* repo.getForUpdate(b.id, full.id))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, uuid()))).toBe(true)
          expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
        })
      )

      test(
        "update replaces the fields; another organisation can neither change nor see it",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Quotes.QuoteRepository
          const quote = offer({ created_at: at(1), updated_at: at(1) })
          yield* repo.insert(a.id, quote)
          const sent: Quote = {
            ...quote,
            number: "Q2026-0002",
            status: "sent",
            revision: 1,
            currency: "USD",
            contact_id: uuid(),
            company_id: uuid(),
            ...pricedLines(),
            valid_until: "2026-04-30",
            vat_reason: "export",
            note: "sent by mail",
            invoice_id: uuid(),
            updated_at: at(10)
          }
          yield* repo.update(a.id, sent)
          expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(sent)
          // Clearing goes back to nulls.
          const cleared: Quote = {
            ...sent,
            contact_id: null,
            company_id: null,
            valid_until: null,
            vat_reason: null,
            note: null,
            invoice_id: null,
            updated_at: at(11)
          }
          yield* repo.update(a.id, cleared)
          expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(cleared)

          yield* Effect.either(repo.update(b.id, { ...cleared, note: "Hijacked" }))
          expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(cleared)
          expect(Option.isNone(yield* repo.get(b.id, quote.id))).toBe(true)
          // An unknown quote is left alone, as an UPDATE that matches nothing would.
          yield* repo.update(a.id, offer())
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([quote.id])
        })
      )

      test(
        "list filters: status, contact_id, company_id, each alone and combined",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Quotes.QuoteRepository
          const [ann, bob, acme] = [uuid(), uuid(), uuid()]
          const q1 = offer({ contact_id: ann, company_id: acme, created_at: at(1) })
          const q2 = offer({ status: "sent", contact_id: bob, created_at: at(2) })
          const q3 = offer({ status: "sent", contact_id: ann, created_at: at(3) })
          const q4 = offer({ status: "accepted", company_id: acme, created_at: at(4) })
          for (const quote of [q1, q2, q3, q4]) yield* repo.insert(a.id, quote)
          yield* repo.insert(b.id, offer({ status: "sent", contact_id: ann, company_id: acme, created_at: at(5) }))

          const list = (filter: Quotes.QuoteFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* list({})).toEqual(ids([q4, q3, q2, q1]))
          expect(yield* list({ status: "sent" })).toEqual(ids([q3, q2]))
          expect(yield* list({ status: "draft" })).toEqual([q1.id])
          expect(yield* list({ status: "expired" })).toEqual([])
          expect(yield* list({ contactId: ann })).toEqual(ids([q3, q1]))
          expect(yield* list({ contactId: uuid() })).toEqual([])
          expect(yield* list({ companyId: acme })).toEqual(ids([q4, q1]))
          expect(yield* list({ status: "sent", contactId: ann })).toEqual([q3.id])
          expect(yield* list({ contactId: ann, companyId: acme })).toEqual([q1.id])
          expect(yield* list({ status: "accepted", contactId: ann, companyId: acme })).toEqual([])
        })
      )

      test(
        "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Quotes.QuoteRepository
          const quotes = [5, 5, 5, 1, 9, 5].map((t, i) => offer({ number: `Q${i}`, created_at: at(t) }))
          for (const quote of quotes) yield* repo.insert(a.id, quote)
          const expected = ids(newestFirst(quotes))
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
          expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
          expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
          expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
          expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
          expect(ids(yield* repo.list(a.id, { status: "draft" }, page(3, 1)))).toEqual(expected.slice(1, 5))
        })
      )

      test(
        "revisions are the quote as each send froze it, oldest first, per quote and organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Quotes.QuoteRepository
          const quote = offer({ ...pricedLines(), valid_until: "2026-05-01" })
          const neighbour = offer()
          yield* repo.insert(a.id, quote)
          yield* repo.insert(a.id, neighbour)
          const first = {
            quote_id: quote.id,
            revision: 1,
            sent_at: at(10),
            quote: { ...quote, status: "sent" as const, revision: 1 }
          }
          const second = {
            quote_id: quote.id,
            revision: 2,
            sent_at: at(20),
            quote: { ...quote, status: "sent" as const, revision: 2, note: "second offer", valid_until: null }
          }
          yield* repo.addRevision(a.id, first)
          yield* repo.addRevision(a.id, second)
          // Later edits of the quote leave the frozen copies alone.
          yield* repo.update(a.id, { ...quote, note: "edited after sending", updated_at: at(30) })
          expect(yield* repo.revisions(a.id, quote.id)).toEqual([first, second])

          expect(yield* repo.revisions(a.id, neighbour.id)).toEqual([])
          expect(yield* repo.revisions(b.id, quote.id)).toEqual([])
          expect(yield* repo.revisions(a.id, uuid())).toEqual([])
        })
      )

      test(
        "sentExpiringBefore: sent quotes valid until a day before today, and only those of the organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Quotes.QuoteRepository
          const today = "2026-03-10"
          const expiring = [
            offer({ status: "sent", valid_until: "2026-03-09" }),
            offer({ status: "sent", valid_until: "2025-12-31" })
          ]
          const kept = [
            offer({ status: "sent", valid_until: today }),
            offer({ status: "sent", valid_until: "2026-03-11" }),
            offer({ status: "sent", valid_until: null }),
            ...(["draft", "accepted", "rejected", "expired", "cancelled"] as const).map((status) =>
              offer({ status, valid_until: "2026-01-01" })
            )
          ]
          for (const quote of [...expiring, ...kept]) yield* repo.insert(a.id, quote)
          yield* repo.insert(b.id, offer({ status: "sent", valid_until: "2026-01-01" }))

          const due = yield* repo.sentExpiringBefore(a.id, today)
          expect([...due].sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(
            [...expiring].sort((x, y) => (x.id < y.id ? -1 : 1))
          )
          expect(yield* repo.sentExpiringBefore(a.id, "2025-12-31")).toEqual([])
        })
      )

      concurrent(
        "getForUpdate in a unit of work holds the quote until the unit commits",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Quotes.QuoteRepository
          const quote = offer({ note: "Contended" })
          yield* repo.insert(a.id, quote)
          const sent = { ...quote, status: "sent" as const, revision: 1, updated_at: at(1) }
          yield* expectHeldUntilCommit(repo.getForUpdate(a.id, quote.id), repo.update(a.id, sent), quote, sent)
          expect(Option.getOrThrow(yield* repo.get(a.id, quote.id))).toEqual(sent)
        })
      )
    })

    describe("InvoiceRepository", () => {
      test(
        "round-trips every field (decimals, dates, buyer, lines and VAT summary as JSON); a draft has no number key",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Invoicing.InvoiceRepository
          const issued = bill({
            number: "2026-000001",
            kind: "advance",
            status: "partial",
            issue_date: "2026-02-28",
            due_date: "2026-03-14",
            fulfilment_date: "2026-02-27",
            currency: "USD",
            exchange_rate: 24.335,
            contact_id: uuid(),
            company_id: uuid(),
            buyer: {
              name: 'Lee "Ltd"',
              email: "billing@lee.example",
              vat_number: "CZ12345678",
              city: "Brno",
              country: "CZ"
            },
            ...pricedLines(),
            paid_amount: 0.07,
            vat_reason: "reverse charge",
            note: "thank you\nfor your business",
            quote_id: uuid(),
            original_invoice_id: uuid(),
            storno_invoice_id: uuid(),
            issued_at: at(5),
            created_at: at(1),
            updated_at: at(6)
          })
          const draft = bill({ created_at: at(2), updated_at: at(2) })
          const expected = structuredClone(issued)
          yield* repo.insert(a.id, issued)
          yield* repo.insert(a.id, draft)
          // What is stored must not alias the caller's objects, in either direction.
          issued.buyer.name = "changed after insert"
          const got = Option.getOrThrow(yield* repo.get(a.id, issued.id))
          expect(got).toEqual(expected)
          got.buyer.name = "changed after get"
          expect(Option.getOrThrow(yield* repo.get(a.id, issued.id))).toEqual(expected)
          expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, issued.id))).toEqual(expected)

          // toEqual would accept `number: undefined`; the wire must not carry the key at all.
          const gotDraft = Option.getOrThrow(yield* repo.get(a.id, draft.id))
          expect(gotDraft).toEqual(draft)
          expect(Object.hasOwn(gotDraft, "number")).toBe(false)
          expect(Object.hasOwn(Option.getOrThrow(yield* repo.getForUpdate(a.id, draft.id)), "number")).toBe(false)
          const listed = yield* repo.list(a.id, {}, page(50))
          expect(listed).toEqual([draft, expected])
          expect(Object.hasOwn(listed[0]!, "number")).toBe(false)

          // Amounts are exact, whatever their size or decimals; dates stay the calendar day they were.
          const edges = [
            bill({ total: 0, paid_amount: 0, exchange_rate: 0.07, issue_date: "2026-01-01", due_date: "2026-01-01" }),
            bill({ total: 1234.5, paid_amount: 1234.5, exchange_rate: 0.15432, fulfilment_date: "2027-06-30" }),
            bill({ total: 99_999_999.99, paid_amount: 0.01, issue_date: "1999-12-31", due_date: "2000-01-14" }),
            bill({ total: 1e15, subtotal: -0.07, exchange_rate: 1e9, due_date: "2100-02-28" })
          ]
          for (const invoice of edges) yield* repo.insert(a.id, invoice)
          for (const invoice of edges) expect(Option.getOrThrow(yield* repo.get(a.id, invoice.id))).toEqual(invoice)

          expect(Option.getOrThrow(yield* repo.organisationOf(issued.id))).toBe(a.id)
          expect(Option.isNone(yield* repo.organisationOf(uuid()))).toBe(true)
          expect(Option.isNone(yield* repo.get(b.id, issued.id))).toBe(true)
          expect(Option.isNone(yield* repo.getForUpdate(b.id, issued.id))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, uuid()))).toBe(true)
          expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
        })
      )

      test(
        "update gives a draft its number and replaces the fields; another organisation can neither change nor see it",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Invoicing.InvoiceRepository
          const draft = bill({ created_at: at(1), updated_at: at(1) })
          yield* repo.insert(a.id, draft)
          const issued: Invoice = {
            ...draft,
            number: "FV2026-0007",
            status: "issued",
            issue_date: "2026-03-02",
            due_date: "2026-03-16",
            fulfilment_date: "2026-03-01",
            currency: "CZK",
            exchange_rate: 25.1,
            contact_id: uuid(),
            company_id: uuid(),
            buyer: { name: "Ann Lee", email: null, vat_number: null, city: "Praha", country: "CZ" },
            ...pricedLines(),
            paid_amount: 100.5,
            vat_reason: "exempt",
            note: "issued",
            quote_id: uuid(),
            issued_at: at(10),
            updated_at: at(10)
          }
          yield* repo.update(a.id, issued)
          expect(Option.getOrThrow(yield* repo.get(a.id, draft.id))).toEqual(issued)
          // Clearing goes back to nulls, and an absent number to no key.
          const { number: _, ...numberless } = issued
          const cleared: Invoice = {
            ...numberless,
            exchange_rate: null,
            contact_id: null,
            company_id: null,
            vat_reason: null,
            note: null,
            quote_id: null,
            issued_at: null,
            updated_at: at(11)
          }
          yield* repo.update(a.id, cleared)
          const got = Option.getOrThrow(yield* repo.get(a.id, draft.id))
          expect(got).toEqual(cleared)
          expect(Object.hasOwn(got, "number")).toBe(false)

          yield* Effect.either(repo.update(b.id, { ...issued, note: "Hijacked" }))
          expect(Option.getOrThrow(yield* repo.get(a.id, draft.id))).toEqual(cleared)
          expect(Option.isNone(yield* repo.get(b.id, draft.id))).toBe(true)
          yield* repo.update(a.id, bill())
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([draft.id])
        })
      )

      test(
        "list filters: status, kind, contact_id, company_id, each alone and combined",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Invoicing.InvoiceRepository
          const [ann, bob, acme] = [uuid(), uuid(), uuid()]
          const i1 = bill({ contact_id: ann, company_id: acme, created_at: at(1) })
          const i2 = bill({ status: "issued", number: "1", contact_id: bob, created_at: at(2) })
          const i3 = bill({ status: "issued", number: "2", kind: "proforma", contact_id: ann, created_at: at(3) })
          const i4 = bill({ status: "paid", number: "3", kind: "storno", company_id: acme, created_at: at(4) })
          for (const invoice of [i1, i2, i3, i4]) yield* repo.insert(a.id, invoice)
          yield* repo.insert(b.id, bill({ status: "issued", contact_id: ann, company_id: acme, created_at: at(5) }))

          const list = (filter: Invoicing.InvoiceFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
          expect(yield* list({})).toEqual(ids([i4, i3, i2, i1]))
          expect(yield* list({ status: "issued" })).toEqual(ids([i3, i2]))
          expect(yield* list({ status: "overdue" })).toEqual([])
          expect(yield* list({ kind: "normal" })).toEqual(ids([i2, i1]))
          expect(yield* list({ kind: "storno" })).toEqual([i4.id])
          expect(yield* list({ kind: "corrective" })).toEqual([])
          expect(yield* list({ contactId: ann })).toEqual(ids([i3, i1]))
          expect(yield* list({ companyId: acme })).toEqual(ids([i4, i1]))
          expect(yield* list({ companyId: uuid() })).toEqual([])
          expect(yield* list({ status: "issued", kind: "normal" })).toEqual([i2.id])
          expect(yield* list({ status: "issued", contactId: ann })).toEqual([i3.id])
          expect(yield* list({ contactId: ann, companyId: acme, kind: "normal", status: "draft" })).toEqual([i1.id])
          expect(yield* list({ contactId: ann, companyId: acme, kind: "proforma" })).toEqual([])
        })
      )

      test(
        "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Invoicing.InvoiceRepository
          const invoices = [3, 7, 3, 3, 0, 7].map((t, i) => bill({ note: `I${i}`, created_at: at(t) }))
          for (const invoice of invoices) yield* repo.insert(a.id, invoice)
          const expected = ids(newestFirst(invoices))
          expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
          expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
          expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
          expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
          expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
          expect(ids(yield* repo.list(a.id, { kind: "normal" }, page(3, 1)))).toEqual(expected.slice(1, 5))
        })
      )

      test(
        "payments round-trip, oldest first (same instant: in the order recorded), per invoice and organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Invoicing.InvoiceRepository
          const invoice = bill({ status: "partial", number: "1" })
          const neighbour = bill()
          yield* repo.insert(a.id, invoice)
          yield* repo.insert(a.id, neighbour)
          const later = payment(invoice, {
            amount: 1234.5,
            paid_on: "2026-03-31",
            method: "bank transfer",
            reference: "VS 2026000001",
            created_at: at(30)
          })
          const first = payment(invoice, { amount: 0.07, paid_on: "2026-02-28", created_at: at(10) })
          const sameInstant = [0.01, 99_999_999.99, 1e12].map((amount) =>
            payment(invoice, { amount, paid_on: "1999-12-31", created_at: at(20) })
          )
          for (const paid of [later, first, ...sameInstant]) yield* repo.addPayment(a.id, paid)
          yield* repo.addPayment(a.id, payment(neighbour, { created_at: at(5) }))

          expect(yield* repo.payments(a.id, invoice.id)).toEqual([first, ...sameInstant, later])
          expect(yield* repo.payments(b.id, invoice.id)).toEqual([])
          expect(yield* repo.payments(a.id, uuid())).toEqual([])
          expect(ids(yield* repo.payments(a.id, neighbour.id))).toHaveLength(1)
        })
      )

      test(
        "dueBefore: issued and partly paid invoices due before today, and only those of the organisation",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const repo = yield* Invoicing.InvoiceRepository
          const today = "2026-03-10"
          const due = [
            bill({ status: "issued", number: "1", due_date: "2026-03-09" }),
            bill({ status: "partial", number: "2", due_date: "2025-12-31", paid_amount: 50.5 })
          ]
          const kept = [
            bill({ status: "issued", number: "3", due_date: today }),
            bill({ status: "partial", number: "4", due_date: "2026-03-11" }),
            ...(["draft", "paid", "overdue", "cancelled"] as const).map((status) =>
              bill({ status, due_date: "2026-01-01" })
            )
          ]
          for (const invoice of [...due, ...kept]) yield* repo.insert(a.id, invoice)
          yield* repo.insert(b.id, bill({ status: "issued", due_date: "2026-01-01" }))

          const found = yield* repo.dueBefore(a.id, today)
          expect([...found].sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(
            [...due].sort((x, y) => (x.id < y.id ? -1 : 1))
          )
          expect(yield* repo.dueBefore(a.id, "2025-12-31")).toEqual([])
        })
      )

      concurrent(
        "getForUpdate in a unit of work holds the invoice until the unit commits",
        Effect.gen(function* () {
          const { a } = yield* seed
          const repo = yield* Invoicing.InvoiceRepository
          const invoice = bill({ note: "Contended" })
          yield* repo.insert(a.id, invoice)
          const issued: Invoice = { ...invoice, number: "2026-000001", status: "issued", updated_at: at(1) }
          yield* expectHeldUntilCommit(repo.getForUpdate(a.id, invoice.id), repo.update(a.id, issued), invoice, issued)
          expect(Option.getOrThrow(yield* repo.get(a.id, invoice.id))).toEqual(issued)
        })
      )
    })

    describe("NumberSequence", () => {
      test(
        "counts 1, 2, 3, ... per organisation, series and year, each independently",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const numbers = yield* Invoicing.NumberSequence
          const next = (organisationId: string, series: string, year: number) =>
            numbers.next(organisationId, series, year)
          expect(yield* next(a.id, "normal", 2026)).toBe(1)
          expect(yield* next(a.id, "normal", 2026)).toBe(2)
          expect(yield* next(a.id, "normal", 2026)).toBe(3)
          expect(yield* next(a.id, "normal", 2027)).toBe(1)
          expect(yield* next(a.id, "quote", 2026)).toBe(1)
          expect(yield* next(b.id, "normal", 2026)).toBe(1)
          expect(yield* next(a.id, "normal", 2026)).toBe(4)
          expect(yield* next(a.id, "normal", 2027)).toBe(2)
          expect(yield* next(b.id, "normal", 2026)).toBe(2)
          expect(yield* next(a.id, "quote", 2026)).toBe(2)
        })
      )

      test(
        "a unit of work that allocates and then fails takes its number back: the next allocation gets it",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const numbers = yield* Invoicing.NumberSequence
          expect(yield* tx.run(numbers.next(a.id, "normal", 2026))).toBe(1)
          const error = yield* Effect.flip(
            tx.run(
              Effect.gen(function* () {
                expect(yield* numbers.next(a.id, "normal", 2026)).toBe(2)
                expect(yield* numbers.next(a.id, "normal", 2026)).toBe(3)
                return yield* new Boom({ step: "after allocating" })
              })
            )
          )
          expect(error).toEqual(new Boom({ step: "after allocating" }))
          expect(yield* tx.run(numbers.next(a.id, "normal", 2026))).toBe(2)
          expect(yield* numbers.next(a.id, "normal", 2026)).toBe(3)
        })
      )

      concurrent(
        "20 concurrent units allocating in one series get exactly 1..20, none twice",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const numbers = yield* Invoicing.NumberSequence
          const given = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) =>
              tx.run(
                Effect.gen(function* () {
                  const number = yield* numbers.next(a.id, "normal", 2026)
                  // Stay open after allocating, so that the others must wait for the commit.
                  yield* Effect.sleep(`${(i * 7) % 5} millis`)
                  return number
                })
              ),
            { concurrency: "unbounded" }
          )
          expect([...given].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
          expect(yield* numbers.next(a.id, "normal", 2026)).toBe(21)
        }),
        120_000
      )

      concurrent(
        "concurrent units of which some fail after allocating: the committed ones hold 1..n without a gap",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const numbers = yield* Invoicing.NumberSequence
          const results = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) =>
              Effect.either(
                tx.run(
                  Effect.gen(function* () {
                    const number = yield* numbers.next(a.id, "normal", 2026)
                    yield* Effect.sleep(`${(i * 3) % 4} millis`)
                    if (i % 4 === 1) return yield* new Boom({ step: `unit ${i}` })
                    return number
                  })
                )
              ),
            { concurrency: "unbounded" }
          )
          const committed = results.filter(Either.isRight).map((result) => result.right)
          expect(committed).toHaveLength(15)
          expect([...committed].sort((x, y) => x - y)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1))
          expect(yield* numbers.next(a.id, "normal", 2026)).toBe(16)
        }),
        120_000
      )
    })

    describe("ExchangeRates", () => {
      test(
        "latest is the newest rate published on or before the date, never a later one; pairs are directed",
        Effect.gen(function* () {
          const rates = yield* Invoicing.ExchangeRates
          expect(Option.isNone(yield* rates.latest("EUR", "CZK", "2026-01-05"))).toBe(true)
          const published = [
            rate("2026-01-05", "EUR", "CZK", "24.4"),
            rate("2026-01-02", "EUR", "CZK", "24.335"),
            rate("2026-01-07", "EUR", "CZK", "24.1"),
            rate("2026-01-06", "USD", "CZK", "20.9"),
            rate("2026-01-06", "EUR", "USD", "1.0543")
          ]
          expect(yield* rates.store(published)).toBe(5)
          const latest = (from: string, to: string, date: string) =>
            Effect.map(rates.latest(from, to, date), Option.getOrNull)
          expect(yield* latest("EUR", "CZK", "2026-01-06")).toEqual(published[0])
          expect(yield* latest("EUR", "CZK", "2026-01-05")).toEqual(published[0])
          expect(yield* latest("EUR", "CZK", "2026-01-04")).toEqual(published[1])
          expect(yield* latest("EUR", "CZK", "2026-01-02")).toEqual(published[1])
          expect(yield* latest("EUR", "CZK", "2026-01-01")).toBeNull()
          expect(yield* latest("EUR", "CZK", "2030-12-31")).toEqual(published[2])
          expect(yield* latest("USD", "CZK", "2026-01-06")).toEqual(published[3])
          expect(yield* latest("EUR", "USD", "2026-02-01")).toEqual(published[4])
          expect(yield* latest("CZK", "EUR", "2026-01-06")).toBeNull()
          expect(yield* latest("USD", "EUR", "2026-01-06")).toBeNull()
          expect(yield* latest("GBP", "CZK", "2026-01-06")).toBeNull()
          expect(yield* rates.store([])).toBe(0)
        })
      )

      test(
        "store replaces the rate of a day and pair (a later one in the same batch wins) and keeps decimals exact",
        Effect.gen(function* () {
          const rates = yield* Invoicing.ExchangeRates
          const latest = (from: string, to: string, date: string) =>
            Effect.map(rates.latest(from, to, date), Option.getOrNull)
          expect(yield* rates.store([rate("2026-01-02", "EUR", "CZK", "24.335")])).toBe(1)
          expect(
            yield* rates.store([
              rate("2026-01-02", "EUR", "CZK", "25"),
              rate("2026-01-02", "EUR", "CZK", "25.125"),
              rate("2026-01-02", "HUF", "CZK", "0.05892"),
              rate("2026-01-02", "IDR", "CZK", "0.0012345678901234567890123"),
              rate("2026-01-02", "CZK", "XAU", "123456789012345678.5"),
              rate("2026-01-02", "EUR", "SEK", "0.15432")
            ])
          ).toBe(5)
          expect(yield* latest("EUR", "CZK", "2026-01-02")).toEqual(rate("2026-01-02", "EUR", "CZK", "25.125"))
          expect((yield* latest("HUF", "CZK", "2026-01-02"))?.rate).toBe("0.05892")
          expect((yield* latest("IDR", "CZK", "2026-01-02"))?.rate).toBe("0.0012345678901234567890123")
          expect((yield* latest("CZK", "XAU", "2026-01-02"))?.rate).toBe("123456789012345678.5")
          expect((yield* latest("EUR", "SEK", "2026-01-03"))?.rate).toBe("0.15432")
          // Replacing one day leaves the other days of the pair alone.
          yield* rates.store([rate("2026-01-03", "EUR", "CZK", "24.335")])
          expect(yield* rates.store([rate("2026-01-03", "EUR", "CZK", "24.3")])).toBe(1)
          expect((yield* latest("EUR", "CZK", "2026-01-02"))?.rate).toBe("25.125")
          expect(yield* latest("EUR", "CZK", "2026-01-03")).toEqual(rate("2026-01-03", "EUR", "CZK", "24.3"))
        })
      )

      test(
        "thousands of rates store in one call",
        Effect.gen(function* () {
          const rates = yield* Invoicing.ExchangeRates
          const days = Array.from({ length: 400 }, (_, i) =>
            new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10)
          )
          const codes = ["USD", "GBP", "JPY", "HUF", "PLN", "SEK", "CHF", "NOK", "DKK", "CZK"]
          const published = days.flatMap((day, d) =>
            codes.map((code, c) => rate(day, "EUR", code, `${c + 1}.${String(d).padStart(4, "0")}1`))
          )
          expect(yield* rates.store(published)).toBe(4000)
          expect(Option.getOrThrow(yield* rates.latest("EUR", "PLN", days[123]!))).toEqual(published[123 * 10 + 4])
          expect(Option.getOrThrow(yield* rates.latest("EUR", "CZK", "2099-01-01"))).toEqual(published.at(-1))
        }),
        120_000
      )
    })

    describe("Transaction", () => {
      test(
        "a unit of work commits all its writes and returns its value",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const log = yield* Events.EventLog
          const ann = person({ first_name: "Ann" })
          const value = yield* tx.run(
            Effect.gen(function* () {
              yield* repo.insert(a.id, ann)
              yield* log.append(a.id, [{ event: "contact.created", data: { id: ann.id } }], at(0))
              return "done"
            })
          )
          expect(value).toBe("done")
          expect(Option.isSome(yield* repo.get(a.id, ann.id))).toBe(true)
          expect((yield* allEvents(a.id)).map((event) => event.data)).toEqual([{ id: ann.id }])
        })
      )

      test(
        "a failure rolls back every write of the unit (the contact and its event are both absent)",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const companies = yield* Companies.CompanyRepository
          const log = yield* Events.EventLog
          const ann = person({ first_name: "Ann", email: "ann@example.com" })
          const acme = firm()
          const error = yield* Effect.flip(
            tx.run(
              Effect.gen(function* () {
                yield* companies.insert(a.id, acme)
                yield* repo.insert(a.id, ann)
                yield* log.append(a.id, [{ event: "contact.created", data: { id: ann.id } }], at(0))
                return yield* new Boom({ step: "after append" })
              })
            )
          )
          expect(error).toEqual(new Boom({ step: "after append" }))
          expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
          expect(Option.isNone(yield* companies.get(a.id, acme.id))).toBe(true)
          expect(yield* repo.countLive(a.id)).toBe(0)
          expect(yield* allEvents(a.id)).toEqual([])

          // Nothing is left locked or half-done: the address is free and the next unit commits.
          const next = person({ email: "ann@example.com" })
          yield* tx.run(
            Effect.gen(function* () {
              yield* repo.insert(a.id, next)
              yield* log.append(a.id, [{ event: "contact.created", data: { id: next.id } }], at(1))
            })
          )
          expect(Option.isSome(yield* repo.get(a.id, next.id))).toBe(true)
          expect((yield* allEvents(a.id)).map((event) => event.data)).toEqual([{ id: next.id }])
        })
      )

      test(
        "a defect rolls back too",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const ann = person()
          const exit = yield* Effect.exit(tx.run(Effect.zipRight(repo.insert(a.id, ann), Effect.die("bug"))))
          expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
        })
      )

      test(
        "interruption rolls back, and the store stays usable",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const log = yield* Events.EventLog
          const ann = person({ email: "ann@example.com" })
          const entered = yield* Deferred.make<void>()
          const fiber = yield* Effect.fork(
            tx.run(
              Effect.gen(function* () {
                yield* repo.insert(a.id, ann)
                yield* log.append(a.id, [{ event: "contact.created", data: { id: ann.id } }], at(0))
                yield* Deferred.succeed(entered, undefined)
                return yield* Effect.never
              })
            )
          )
          yield* Deferred.await(entered)
          yield* Fiber.interrupt(fiber)

          expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
          expect(yield* allEvents(a.id)).toEqual([])
          const next = person({ email: "ann@example.com" })
          yield* tx.run(repo.insert(a.id, next))
          expect(Option.isSome(yield* repo.get(a.id, next.id))).toBe(true)
        })
      )

      test(
        "a nested unit joins the enclosing one: its failure, once it escapes, undoes the whole unit",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const log = yield* Events.EventLog
          const [first, inner] = [person({ first_name: "A" }), person({ first_name: "B" })]
          const created = (contact: Contact) =>
            log.append(a.id, [{ event: "contact.created", data: { id: contact.id } }], at(0))
          const error = yield* Effect.flip(
            tx.run(
              Effect.gen(function* () {
                yield* repo.insert(a.id, first)
                yield* created(first)
                yield* tx.run(
                  Effect.gen(function* () {
                    yield* repo.insert(a.id, inner)
                    yield* created(inner)
                    return yield* new Boom({ step: "inner" })
                  })
                )
              })
            )
          )
          expect(error).toEqual(new Boom({ step: "inner" }))
          expect(Option.isNone(yield* repo.get(a.id, first.id))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, inner.id))).toBe(true)
          expect(yield* allEvents(a.id)).toEqual([])
        })
      )

      test(
        "a port's conflict leaves the unit usable: caught, the unit goes on and commits the rest",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const log = yield* Events.EventLog
          const holder = person({ email: "held@example.com" })
          yield* tx.run(repo.insert(a.id, holder))
          const [clash, last] = [person({ email: "held@example.com" }), person({ first_name: "C" })]
          const conflict = yield* tx.run(
            Effect.gen(function* () {
              const refused = yield* Effect.flip(repo.insert(a.id, clash))
              yield* repo.insert(a.id, last)
              yield* log.append(a.id, [{ event: "contact.created", data: { id: last.id } }], at(0))
              return refused
            })
          )
          expect(conflict).toBeInstanceOf(Errors.EmailAlreadyExists)
          expect((conflict as Errors.EmailAlreadyExists).detail).toMatchObject({ id: holder.id })
          expect(Option.isNone(yield* repo.get(a.id, clash.id))).toBe(true)
          expect(Option.isSome(yield* repo.get(a.id, last.id))).toBe(true)
          expect((yield* allEvents(a.id)).map((event) => event.data)).toEqual([{ id: last.id }])
        })
      )

      test(
        "a nested unit that succeeded is still undone when the outer unit fails",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const [outer, inner] = [person(), person()]
          const error = yield* Effect.flip(
            tx.run(
              Effect.gen(function* () {
                yield* repo.insert(a.id, outer)
                yield* tx.run(repo.insert(a.id, inner))
                return yield* new Boom({ step: "outer" })
              })
            )
          )
          expect(error._tag).toBe("Boom")
          expect(Option.isNone(yield* repo.get(a.id, outer.id))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, inner.id))).toBe(true)
          expect(yield* repo.countLive(a.id)).toBe(0)
        })
      )

      test(
        "a nested failure that is not caught fails the whole unit",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const [outer, inner] = [person(), person()]
          const error = yield* Effect.flip(
            tx.run(
              Effect.gen(function* () {
                yield* repo.insert(a.id, outer)
                yield* tx.run(Effect.zipRight(repo.insert(a.id, inner), new Boom({ step: "inner" })))
              })
            )
          )
          expect(error).toEqual(new Boom({ step: "inner" }))
          expect(yield* repo.countLive(a.id)).toBe(0)
        })
      )

      concurrent(
        "work in progress is invisible outside its unit, and gone after it fails",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const log = yield* Events.EventLog
          const ann = person()
          const written = yield* Deferred.make<void>()
          const gate = yield* Deferred.make<void>()
          const unit = yield* Effect.fork(
            tx.run(
              Effect.gen(function* () {
                yield* repo.insert(a.id, ann)
                yield* log.append(a.id, [{ event: "contact.created", data: { id: ann.id } }], at(0))
                yield* Deferred.succeed(written, undefined)
                yield* Deferred.await(gate)
                return yield* new Boom({ step: "after the reads" })
              })
            )
          )
          yield* Deferred.await(written)
          // An adapter may answer these at once (from committed state) or only after the unit
          // ends; either way they must not see its writes.
          const reads = yield* Effect.fork(Effect.all([repo.get(a.id, ann.id), allEvents(a.id), repo.countLive(a.id)]))
          yield* Effect.sleep("50 millis")
          yield* Deferred.succeed(gate, undefined)
          const [found, events, count] = yield* Fiber.join(reads)
          expect(Option.isNone(found)).toBe(true)
          expect(events).toEqual([])
          expect(count).toBe(0)
          expect(Exit.isFailure(yield* Fiber.await(unit))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
        })
      )

      concurrent(
        "50 concurrent units each inserting a contact and its event all commit; a poller following the cursor sees every event once, in id order",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const log = yield* Events.EventLog
          const contacts = Array.from({ length: 50 }, (_, i) =>
            person({ first_name: `P${i}`, email: `p${i}@example.com` })
          )
          const writersDone = yield* Deferred.make<void>()

          const poller = Effect.gen(function* () {
            const seen: Array<string> = []
            let cursor = 0n
            for (;;) {
              const finished = yield* Deferred.isDone(writersDone)
              const rows = yield* log.after(a.id, { since: cursor, event: undefined, limit: 7 })
              for (const row of rows.slice(0, 7)) {
                seen.push(row.id)
                cursor = BigInt(row.id)
              }
              if (rows.length === 0) {
                if (finished) return seen
                yield* Effect.sleep("1 millis")
              }
            }
          })
          const polling = yield* Effect.fork(poller)

          yield* Effect.forEach(
            contacts,
            (contact, i) =>
              tx.run(
                Effect.gen(function* () {
                  yield* repo.insert(a.id, contact)
                  // Vary how long each unit stays open before and after taking its event id, so that
                  // commits would come in another order than ids if the adapter let them.
                  yield* Effect.sleep(`${(i * 7) % 5} millis`)
                  yield* log.append(a.id, [{ event: "contact.created", data: { id: contact.id, n: i } }], at(i))
                  yield* Effect.sleep(`${(i * 3) % 4} millis`)
                })
              ),
            { concurrency: "unbounded", discard: true }
          )
          yield* Deferred.succeed(writersDone, undefined)
          const seen = yield* Fiber.join(polling)

          const events = yield* allEvents(a.id)
          expect(events).toHaveLength(50)
          expectIncreasing(ids(events))
          expect(events.map((event) => event.data.id).sort()).toEqual(ids(contacts).sort())
          expect(seen).toEqual(ids(events))
          expect(yield* repo.countLive(a.id)).toBe(50)
          for (const contact of contacts) expect(Option.isSome(yield* repo.get(a.id, contact.id))).toBe(true)
        }),
        120_000
      )

      concurrent(
        "30 concurrent units that insert, lock the organisation, count and roll back past 5: exactly 5 commit",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const log = yield* Events.EventLog
          // What a create under a plan limit does: insert, then count under the lock until commit.
          const createUnderLimit = (organisationId: string, i: number) =>
            Effect.either(
              tx.run(
                Effect.gen(function* () {
                  const contact = person({ first_name: `P${i}` })
                  yield* repo.insert(organisationId, contact)
                  // Leave the unit open before the lock, so that the units' inserts overlap.
                  yield* Effect.sleep(`${i % 3} millis`)
                  yield* tx.lockOrganisation(organisationId)
                  if ((yield* repo.countLive(organisationId)) > 5) return yield* new Boom({ step: "over the limit" })
                  // The event log's append, which takes the organisation's lock as well, still goes through.
                  yield* log.append(organisationId, [{ event: "contact.created", data: { id: contact.id } }], at(i))
                })
              )
            )
          const results = yield* Effect.forEach(
            Array.from({ length: 30 }, (_, i) => i),
            (i) => createUnderLimit(i % 2 === 0 ? a.id : b.id, i),
            { concurrency: "unbounded" }
          )
          expect(results.filter((result, i) => Either.isRight(result) && i % 2 === 0)).toHaveLength(5)
          expect(results.filter((result, i) => Either.isRight(result) && i % 2 === 1)).toHaveLength(5)
          for (const result of results)
            if (Either.isLeft(result)) expect(result.left).toEqual(new Boom({ step: "over the limit" }))
          expect(yield* repo.countLive(a.id)).toBe(5)
          expect(yield* repo.countLive(b.id)).toBe(5)
          expect(yield* allEvents(a.id)).toHaveLength(5)

          // A unit that fails lets go of the lock: the next one takes it and commits.
          yield* Effect.flip(tx.run(Effect.zipRight(tx.lockOrganisation(a.id), new Boom({ step: "locked" }))))
          yield* tx.run(Effect.zipRight(tx.lockOrganisation(a.id), repo.insert(a.id, person({ first_name: "Last" }))))
          expect(yield* repo.countLive(a.id)).toBe(6)
        }),
        120_000
      )

      concurrent(
        "concurrent inserts of one address: exactly one wins, the others name it",
        Effect.gen(function* () {
          const { a } = yield* seed
          const tx = yield* Transaction.Transaction
          const repo = yield* Contacts.ContactRepository
          const contenders = Array.from({ length: 20 }, () => person({ email: "same@example.com" }))
          const results = yield* Effect.forEach(
            contenders,
            (contact) => Effect.either(tx.run(repo.insert(a.id, contact))),
            { concurrency: "unbounded" }
          )
          const winners = contenders.filter((_, i) => Either.isRight(results[i]!))
          expect(winners).toHaveLength(1)
          for (const result of results) {
            if (Either.isLeft(result)) expectEmailTaken(result.left, winners[0]!.id)
          }
          expect(yield* repo.countLive(a.id)).toBe(1)
        }),
        120_000
      )
    })

    describe("EventLog", () => {
      test(
        "append assigns increasing decimal ids in the given order and keeps event, data and time",
        Effect.gen(function* () {
          const { a } = yield* seed
          const log = yield* Events.EventLog
          const batch: ReadonlyArray<Events.NewEvent> = [
            { event: "contact.created", data: { id: "1", nested: { list: [1, 2], flag: false, none: null } } },
            { event: "contact.updated", data: { id: "1", first_name: "Ann" } },
            { event: "deal.won", data: {} }
          ]
          yield* log.append(a.id, batch, at(42))
          yield* log.append(a.id, [], at(43))
          const events = yield* allEvents(a.id)
          expect(events.map(({ data, event }) => ({ event, data }))).toEqual(batch)
          expect(events.map((event) => event.created_at)).toEqual([at(42), at(42), at(42)])
          expectIncreasing(ids(events))
        })
      )

      test(
        "ids increase store-wide, across organisations and appends",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const log = yield* Events.EventLog
          yield* log.append(a.id, [{ event: "contact.created", data: { n: 1 } }], at(0))
          yield* log.append(b.id, [{ event: "contact.created", data: { n: 2 } }], at(1))
          yield* log.append(a.id, [{ event: "contact.created", data: { n: 3 } }], at(2))
          const [a1, a2] = ids(yield* allEvents(a.id))
          const [b1] = ids(yield* allEvents(b.id))
          expectIncreasing([a1!, b1!, a2!])
        })
      )

      test(
        "after returns only events past the cursor, oldest first, at most limit + 1; the cursor walks each once",
        Effect.gen(function* () {
          const { a } = yield* seed
          const log = yield* Events.EventLog
          yield* log.append(
            a.id,
            [1, 2, 3].map((n) => ({ event: "contact.created", data: { n } })),
            at(0)
          )
          yield* log.append(
            a.id,
            [4, 5].map((n) => ({ event: "contact.created", data: { n } })),
            at(1)
          )
          yield* log.append(
            a.id,
            [6, 7].map((n) => ({ event: "contact.created", data: { n } })),
            at(2)
          )
          const all = yield* allEvents(a.id)
          expect(all.map((event) => event.data.n)).toEqual([1, 2, 3, 4, 5, 6, 7])
          const after = (since: bigint, limit: number) => log.after(a.id, { since, event: undefined, limit })

          expect(ids(yield* after(0n, 3))).toEqual(ids(all.slice(0, 4)))
          expect(ids(yield* after(BigInt(all[2]!.id), 3))).toEqual(ids(all.slice(3, 7)))
          expect(ids(yield* after(BigInt(all[4]!.id), 3))).toEqual(ids(all.slice(5)))
          expect(yield* after(BigInt(all[6]!.id), 3)).toEqual([])
          expect(yield* after(BigInt(all[6]!.id) + 1000n, 3)).toEqual([])

          const walked: Array<string> = []
          let cursor = 0n
          for (;;) {
            const rows = yield* after(cursor, 2)
            const data = rows.slice(0, 2)
            walked.push(...ids(data))
            if (data.length > 0) cursor = BigInt(data[data.length - 1]!.id)
            if (rows.length <= 2) break
          }
          expect(walked).toEqual(ids(all))
        })
      )

      test(
        "the event filter keeps one name, and the limit counts only matching events",
        Effect.gen(function* () {
          const { a } = yield* seed
          const log = yield* Events.EventLog
          const names: ReadonlyArray<Events.EventName> = [
            "contact.created",
            "company.created",
            "contact.created",
            "company.created",
            "contact.created",
            "company.created"
          ]
          yield* log.append(
            a.id,
            names.map((event, n) => ({ event, data: { n } })),
            at(0)
          )
          const companies = (since: bigint, limit: number) =>
            log.after(a.id, { since, event: "company.created", limit })
          const matching = yield* companies(0n, 2)
          expect(matching.map((event) => event.data.n)).toEqual([1, 3, 5])
          expect(matching.every((event) => event.event === "company.created")).toBe(true)
          expect((yield* companies(BigInt(matching[1]!.id), 2)).map((event) => event.data.n)).toEqual([5])
          expect(yield* log.after(a.id, { since: 0n, event: "deal.won", limit: 10 })).toEqual([])
        })
      )

      test(
        "each organisation sees only its own events",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const log = yield* Events.EventLog
          yield* log.append(a.id, [{ event: "contact.created", data: { org: "a" } }], at(0))
          yield* log.append(
            b.id,
            [
              { event: "contact.created", data: { org: "b" } },
              { event: "company.created", data: { org: "b" } }
            ],
            at(1)
          )
          yield* log.append(a.id, [{ event: "company.created", data: { org: "a" } }], at(2))
          expect((yield* allEvents(a.id)).map((event) => event.data.org)).toEqual(["a", "a"])
          expect((yield* allEvents(b.id)).map((event) => event.data.org)).toEqual(["b", "b"])
          expect(yield* allEvents(uuid())).toEqual([])
          expect(
            (yield* log.after(a.id, { since: 0n, event: "company.created", limit: 10 })).map((event) => event.data.org)
          ).toEqual(["a"])
        })
      )

      test(
        "purgeBefore deletes strictly older events of every organisation and returns how many",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const log = yield* Events.EventLog
          yield* log.append(a.id, [{ event: "contact.created", data: { n: "a0" } }], at(0))
          yield* log.append(b.id, [{ event: "contact.created", data: { n: "b5" } }], at(5))
          yield* log.append(a.id, [{ event: "contact.created", data: { n: "a10" } }], at(10))
          yield* log.append(a.id, [{ event: "contact.created", data: { n: "a20" } }], at(20))
          yield* log.append(b.id, [{ event: "contact.created", data: { n: "b20" } }], at(20))
          const before = ids(yield* allEvents(a.id)).concat(ids(yield* allEvents(b.id)))

          expect(yield* log.purgeBefore(at(10))).toBe(2)
          expect((yield* allEvents(a.id)).map((event) => event.data.n)).toEqual(["a10", "a20"])
          expect((yield* allEvents(b.id)).map((event) => event.data.n)).toEqual(["b20"])
          expect(yield* log.purgeBefore(at(10))).toBe(0)

          // Purging never lets an id be handed out again.
          yield* log.append(a.id, [{ event: "contact.created", data: { n: "a30" } }], at(30))
          const newest = (yield* allEvents(a.id)).at(-1)!
          for (const id of before) expect(BigInt(newest.id) > BigInt(id)).toBe(true)
        })
      )
    })

    describe("RateLimiter", () => {
      const take = (keyId: string, now: number, limit: number, spend = true, windowMs = 1000) =>
        Effect.flatMap(Access.RateLimiter, (limiter) => limiter.take(keyId, { now, limit, windowMs, spend }))

      test(
        "admits exactly limit requests, counting down; the next waits for the oldest to leave",
        Effect.gen(function* () {
          const { a } = yield* seed
          const key = yield* newKey(a.id)
          expect(yield* take(key.id, T0, 3)).toEqual({ admitted: true, remaining: 2, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 100, 3)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 200, 3)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 300, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 700 })
          expect(yield* take(key.id, T0 + 400, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 600 })
        })
      )

      test(
        "the window slides: a request leaves exactly windowMs after it was admitted, refusals are not counted",
        Effect.gen(function* () {
          const { a } = yield* seed
          const key = yield* newKey(a.id)
          yield* take(key.id, T0, 3)
          yield* take(key.id, T0 + 100, 3)
          yield* take(key.id, T0 + 200, 3)
          expect(yield* take(key.id, T0 + 500, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 500 })
          expect(yield* take(key.id, T0 + 999, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 1 })
          expect(yield* take(key.id, T0 + 1000, 3)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 1001, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 99 })
          expect(yield* take(key.id, T0 + 1100, 3)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 2050, 3)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 5000, 3)).toEqual({ admitted: true, remaining: 2, retryAfterMs: 0 })
        })
      )

      test(
        "spend: false reports the decision without spending",
        Effect.gen(function* () {
          const { a } = yield* seed
          const key = yield* newKey(a.id)
          for (let i = 0; i < 5; i++) {
            expect(yield* take(key.id, T0 + i, 2, false)).toEqual({ admitted: true, remaining: 2, retryAfterMs: 0 })
          }
          expect(yield* take(key.id, T0 + 10, 2)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 20, 2, false)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 30, 2)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 40, 2, false)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 970 })
          expect(yield* take(key.id, T0 + 1010, 2, false)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 1010, 2)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
          expect(yield* take(key.id, T0 + 1011, 2)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 19 })
        })
      )

      test(
        "keys are independent",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const [first, second, other] = [yield* newKey(a.id), yield* newKey(a.id), yield* newKey(b.id)]
          yield* take(first.id, T0, 2)
          yield* take(first.id, T0, 2)
          expect((yield* take(first.id, T0 + 1, 2)).admitted).toBe(false)
          expect(yield* take(second.id, T0 + 1, 2)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
          expect(yield* take(other.id, T0 + 1, 2)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
          expect(yield* take(second.id, T0 + 2, 2, false)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
        })
      )

      concurrent(
        "200 concurrent takes against a limit of 120 admit exactly 120, each seeing its own remaining",
        Effect.gen(function* () {
          const { a } = yield* seed
          const key = yield* newKey(a.id)
          const decisions = yield* Effect.forEach(
            Array.from({ length: 200 }, (_, i) => i),
            (i) => take(key.id, T0 + (i % 3), 120, true, 60_000),
            { concurrency: "unbounded" }
          )
          const admitted = decisions.filter((decision) => decision.admitted)
          expect(admitted).toHaveLength(120)
          expect(admitted.map((decision) => decision.remaining).sort((x, y) => x - y)).toEqual(
            Array.from({ length: 120 }, (_, i) => i)
          )
          for (const refused of decisions.filter((decision) => !decision.admitted)) {
            expect(refused.remaining).toBe(0)
            expect(refused.retryAfterMs).toBeGreaterThan(0)
          }
          expect((yield* take(key.id, T0 + 10, 120, true, 60_000)).admitted).toBe(false)
          expect(yield* take(key.id, T0 + 10, 120, false, 60_000)).toMatchObject({ admitted: false, remaining: 0 })
        }),
        120_000
      )
    })

    describe("IdempotencyStore", () => {
      const response = (body: string): Idempotency.StoredResponse => ({
        status: 201,
        headers: { "content-type": "application/json", location: "/api/v1/contacts/1" },
        body
      })
      const record = (created_at: string, body = '{"id":"1"}'): Idempotency.IdempotencyRecord => ({
        fingerprint: `POST /api/v1/contacts ${sha256(body)}`,
        response: response(body),
        created_at
      })
      // The port's calls belong inside a unit of work.
      const claim = (scope: Idempotency.IdempotencyScope, notBefore: string) =>
        Effect.flatMap(Transaction.Transaction, (tx) =>
          tx.run(Effect.flatMap(Idempotency.IdempotencyStore, (store) => store.claim(scope, notBefore)))
        )
      const save = (scope: Idempotency.IdempotencyScope, value: Idempotency.IdempotencyRecord, notBefore = at(-1)) =>
        Effect.flatMap(Transaction.Transaction, (tx) =>
          tx.run(Effect.flatMap(Idempotency.IdempotencyStore, (store) => store.save(scope, value, notBefore)))
        )

      test(
        "claim finds nothing until a save, then the record while it is not older than notBefore",
        Effect.gen(function* () {
          const { a } = yield* seed
          const [key, otherKey] = [yield* newKey(a.id), yield* newKey(a.id)]
          const scope = { keyId: key.id, idempotencyKey: "order-1" }
          expect(Option.isNone(yield* claim(scope, at(0)))).toBe(true)
          const saved = record(at(100))
          yield* save(scope, saved)
          expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(saved)
          expect(Option.getOrThrow(yield* claim(scope, at(100)))).toEqual(saved)
          expect(Option.isNone(yield* claim(scope, at(101)))).toBe(true)
          expect(Option.isNone(yield* claim({ keyId: otherKey.id, idempotencyKey: "order-1" }, at(0)))).toBe(true)
          expect(Option.isNone(yield* claim({ keyId: key.id, idempotencyKey: "order-2" }, at(0)))).toBe(true)
        })
      )

      test(
        "save replaces an expired record of the same key, never one made at or after notBefore",
        Effect.gen(function* () {
          const { a } = yield* seed
          const key = yield* newKey(a.id)
          const scope = { keyId: key.id, idempotencyKey: "k" }
          expect(yield* save(scope, record(at(0), "first"))).toBe(true)
          const second = record(at(50), "second")
          expect(yield* save(scope, second, at(1))).toBe(true)
          expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(second)
          // A record another request stored after this one's claim looked: left as it is.
          expect(yield* save(scope, record(at(60), "third"), at(50))).toBe(false)
          expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(second)
        })
      )

      test(
        "purgeBefore deletes strictly older records and returns how many",
        Effect.gen(function* () {
          const { a } = yield* seed
          const key = yield* newKey(a.id)
          const scope = (idempotencyKey: string) => ({ keyId: key.id, idempotencyKey })
          yield* save(scope("t0"), record(at(0)))
          yield* save(scope("t10"), record(at(10)))
          yield* save(scope("t20"), record(at(20)))
          const store = yield* Idempotency.IdempotencyStore
          expect(yield* store.purgeBefore(at(10))).toBe(1)
          expect(Option.isNone(yield* claim(scope("t0"), at(-1)))).toBe(true)
          expect(Option.isSome(yield* claim(scope("t10"), at(-1)))).toBe(true)
          expect(Option.isSome(yield* claim(scope("t20"), at(-1)))).toBe(true)
          expect(yield* store.purgeBefore(at(10))).toBe(0)
        })
      )

      test(
        "the stored response and the effect it describes commit or roll back together",
        Effect.gen(function* () {
          const { a } = yield* seed
          const key = yield* newKey(a.id)
          const tx = yield* Transaction.Transaction
          const store = yield* Idempotency.IdempotencyStore
          const repo = yield* Contacts.ContactRepository
          const scope = { keyId: key.id, idempotencyKey: "create-ann" }
          const attempt = (contact: Contact, fail: boolean) =>
            tx.run(
              Effect.gen(function* () {
                const existing = yield* store.claim(scope, at(0))
                expect(Option.isNone(existing)).toBe(true)
                yield* repo.insert(a.id, contact)
                yield* store.save(scope, record(at(1), contact.id), at(0))
                if (fail) return yield* new Boom({ step: "after save" })
              })
            )
          const lost = person()
          expect((yield* Effect.flip(attempt(lost, true)))._tag).toBe("Boom")
          expect(Option.isNone(yield* claim(scope, at(0)))).toBe(true)
          expect(Option.isNone(yield* repo.get(a.id, lost.id))).toBe(true)

          const kept = person()
          yield* attempt(kept, false)
          expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(record(at(1), kept.id))
          expect(Option.isSome(yield* repo.get(a.id, kept.id))).toBe(true)
        })
      )

      concurrent(
        "while one unit holds a key, another claimant is told so or waits and sees the saved record, never nothing",
        Effect.gen(function* () {
          const { a } = yield* seed
          const key = yield* newKey(a.id)
          const tx = yield* Transaction.Transaction
          const store = yield* Idempotency.IdempotencyStore
          const scope = { keyId: key.id, idempotencyKey: "slow" }
          const claimed = yield* Deferred.make<void>()
          const gate = yield* Deferred.make<void>()
          const saved = record(at(5), "first")
          const first = yield* Effect.fork(
            tx.run(
              Effect.gen(function* () {
                expect(Option.isNone(yield* store.claim(scope, at(0)))).toBe(true)
                yield* Deferred.succeed(claimed, undefined)
                yield* Deferred.await(gate)
                yield* store.save(scope, saved, at(0))
              })
            )
          )
          yield* Deferred.await(claimed)
          const second = yield* Effect.fork(Effect.either(tx.run(store.claim(scope, at(0)))))
          yield* Effect.sleep("50 millis")
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.join(first)
          const outcome = yield* Fiber.join(second)
          if (Either.isLeft(outcome)) {
            expect(outcome.left).toBeInstanceOf(Errors.IdempotencyInProgress)
          } else {
            expect(Option.getOrNull(outcome.right)).toEqual(saved)
          }
          expect(Option.getOrThrow(yield* claim(scope, at(0)))).toEqual(saved)
        })
      )
    })

    describe("AccessRepository", () => {
      test(
        "an empty store has no organisations; organisations round-trip",
        Effect.gen(function* () {
          const access = yield* Access.AccessRepository
          expect(yield* access.countOrganisations).toBe(0)
          const { a, b } = yield* seed
          expect(yield* access.countOrganisations).toBe(2)
          expect(Option.getOrThrow(yield* access.getOrganisation(a.id))).toEqual(a)
          expect(Option.getOrThrow(yield* access.getOrganisation(b.id))).toEqual(b)
          expect(Option.isNone(yield* access.getOrganisation(uuid()))).toBe(true)
        })
      )

      test(
        "listOrganisations is every organisation, oldest first",
        Effect.gen(function* () {
          const access = yield* Access.AccessRepository
          expect(yield* access.listOrganisations).toEqual([])
          const [newest, oldest, middle] = [organisation("Newest"), organisation("Oldest"), organisation("Middle")]
          yield* access.insertOrganisation(newest, at(30))
          yield* access.insertOrganisation(oldest, at(10))
          yield* access.insertOrganisation(middle, at(20))
          expect(yield* access.listOrganisations).toEqual([oldest, middle, newest])
        })
      )

      test(
        "organisationPage: summaries newest first (ties by id descending), at most limit + 1",
        Effect.gen(function* () {
          const access = yield* Access.AccessRepository
          expect(yield* access.organisationPage(page(10))).toEqual([])
          const prague: Organisation = {
            ...organisation("Prague"),
            settings: { ...settingsFor("Prague"), timezone: "Europe/Prague", default_currency: "CZK" }
          }
          const [oldest, twinA, twinB] = [organisation("Oldest"), organisation("Twin A"), organisation("Twin B")]
          yield* access.insertOrganisation(oldest, at(10))
          yield* access.insertOrganisation(prague, at(30))
          yield* access.insertOrganisation(twinA, at(20))
          yield* access.insertOrganisation(twinB, at(20))
          const twins = [twinA, twinB].sort((x, y) => (x.id < y.id ? 1 : -1))
          const summary = (org: Organisation, ms: number) => ({
            id: org.id,
            name: org.name,
            timezone: org.settings.timezone,
            default_currency: org.settings.default_currency,
            created_at: at(ms)
          })
          const all = [summary(prague, 30), summary(twins[0]!, 20), summary(twins[1]!, 20), summary(oldest, 10)]
          expect(yield* access.organisationPage(page(10))).toEqual(all)
          expect(all[0]).toMatchObject({ timezone: "Europe/Prague", default_currency: "CZK" })
          expect(yield* access.organisationPage(page(1, 1))).toEqual(all.slice(1, 3))
          expect(yield* access.organisationPage(page(2, 3))).toEqual(all.slice(3))
          expect(yield* access.organisationPage(page(2, 4))).toEqual([])
        })
      )

      test(
        "updateSettings replaces the document (and the name with it) of that organisation only",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const access = yield* Access.AccessRepository
          const settings: Settings.Settings = {
            ...settingsFor("Renamed"),
            timezone: "Europe/Prague",
            default_currency: "CZK",
            payment_terms_days: 30,
            plan: { read_only: true, max_contacts: 10, max_companies: 0 },
            record_types: [
              { id: uuid(), key: "visit", name: "Visit", fields: [{ key: "note", type: "text", required: false }] }
            ],
            stock: { low_stock_threshold: 2 }
          }
          const expected: Organisation = { id: a.id, name: "Renamed", settings }
          expect(Option.getOrThrow(yield* access.updateSettings(a.id, settings))).toEqual(expected)
          expect(Option.getOrThrow(yield* access.getOrganisation(a.id))).toEqual(expected)
          expect(Option.getOrThrow(yield* access.getOrganisation(b.id))).toEqual(b)
          expect(Option.isNone(yield* access.updateSettings(uuid(), settings))).toBe(true)
          expect(yield* access.countOrganisations).toBe(2)
        })
      )

      test(
        "a test-mode organisation keeps its clock, which setTestClock moves only from where it stands",
        Effect.gen(function* () {
          const { a } = yield* seed
          const access = yield* Access.AccessRepository
          const sandbox: Organisation = { ...organisation("Sandbox"), test_clock: { frozen_at: null } }
          yield* access.insertOrganisation(sandbox, at(5))
          expect(Option.getOrThrow(yield* access.getOrganisation(sandbox.id))).toEqual(sandbox)
          const key = apiKey(sandbox.id)
          yield* access.insertKey(key)

          const frozen = "2030-03-10T12:00:00.000Z"
          expect(yield* access.setTestClock(sandbox.id, null, frozen)).toBe(true)
          const moved: Organisation = { ...sandbox, test_clock: { frozen_at: frozen } }
          expect(Option.getOrThrow(yield* access.getOrganisation(sandbox.id))).toEqual(moved)
          expect(Option.getOrThrow(yield* access.findKeyByHash(key.hash)).organisation).toEqual(moved)
          expect((yield* access.listOrganisations).find((org) => org.id === sandbox.id)).toEqual(moved)

          // Compare and set: a clock that has moved since it was read is left alone.
          expect(yield* access.setTestClock(sandbox.id, null, "2031-01-01T00:00:00.000Z")).toBe(false)
          expect(yield* access.setTestClock(sandbox.id, frozen, null)).toBe(true)
          expect(Option.getOrThrow(yield* access.getOrganisation(sandbox.id))).toEqual(sandbox)

          // A live organisation has no clock to move, and a missing one neither.
          expect(yield* access.setTestClock(a.id, null, frozen)).toBe(false)
          expect(Option.getOrThrow(yield* access.getOrganisation(a.id)).test_clock).toBeUndefined()
          expect(yield* access.setTestClock(uuid(), null, frozen)).toBe(false)
        })
      )

      test(
        "findKeyByHash returns the key with its organisation in one read",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const access = yield* Access.AccessRepository
          const full = apiKey(a.id, {
            name: "ci",
            scopes: ["read", "write", "invoices:write"],
            expires_at: at(86_400_000),
            allowed_ips: ["10.0.0.0/8", "2001:db8::/32"],
            created_at: at(3)
          })
          const bare = apiKey(b.id)
          yield* access.insertKey(full)
          yield* access.insertKey(bare)
          expect(Option.getOrThrow(yield* access.findKeyByHash(full.hash))).toEqual({ key: full, organisation: a })
          expect(Option.getOrThrow(yield* access.findKeyByHash(bare.hash))).toEqual({ key: bare, organisation: b })
          expect(Option.isNone(yield* access.findKeyByHash(sha256("unknown")))).toBe(true)
        })
      )

      test(
        "keyPage: the organisation's keys, revoked ones too, newest first (ties by id descending), at most limit + 1",
        Effect.gen(function* () {
          const { a, b } = yield* seed
          const access = yield* Access.AccessRepository
          expect(yield* access.keyPage(a.id, page(10))).toEqual([])
          const full = apiKey(a.id, {
            name: "ci",
            scopes: ["read", "invoices:write"],
            expires_at: at(86_400_000),
            allowed_ips: ["10.0.0.0/8"],
            created_at: at(30)
          })
          const [twinA, twinB] = [apiKey(a.id, { created_at: at(20) }), apiKey(a.id, { created_at: at(20) })]
          const revoked = apiKey(a.id, { created_at: at(10) })
          for (const key of [revoked, full, twinA, twinB, apiKey(b.id, { created_at: at(40) })]) {
            yield* access.insertKey(key)
          }
          yield* access.revokeKey(revoked.id, at(50))
          const twins = [twinA, twinB].sort((x, y) => (x.id < y.id ? 1 : -1))
          const all = [full, twins[0]!, twins[1]!, { ...revoked, revoked_at: at(50) }]
          expect(yield* access.keyPage(a.id, page(10))).toEqual(all)
          expect(yield* access.keyPage(a.id, page(1, 1))).toEqual(all.slice(1, 3))
          expect(yield* access.keyPage(a.id, page(2, 4))).toEqual([])
          expect(yield* access.keyPage(uuid(), page(10))).toEqual([])
        })
      )

      test(
        "revokeKey sets revoked_at once; an unknown key is not revoked",
        Effect.gen(function* () {
          const { a } = yield* seed
          const access = yield* Access.AccessRepository
          const [key, other] = [apiKey(a.id), apiKey(a.id)]
          yield* access.insertKey(key)
          yield* access.insertKey(other)
          expect(yield* access.revokeKey(key.id, at(50))).toBe(true)
          expect(Option.getOrThrow(yield* access.findKeyByHash(key.hash)).key.revoked_at).toBe(at(50))
          expect(yield* access.revokeKey(key.id, at(60))).toBe(true)
          expect(Option.getOrThrow(yield* access.findKeyByHash(key.hash)).key.revoked_at).toBe(at(50))
          expect(yield* access.revokeKey(uuid(), at(60))).toBe(false)
          expect(Option.getOrThrow(yield* access.findKeyByHash(other.hash)).key).toEqual(other)
        })
      )
    })
  })
}
