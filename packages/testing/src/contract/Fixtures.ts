/**
 * What every storage contract suite builds its cases from: a fixed clock origin, the two seeded
 * organisations, complete rows of the shared entities (each a new object on every call, so a case
 * may change what it was given), and the checks several ports share.
 */
import { createHash } from "node:crypto"
import {
  Access,
  Companies,
  Contacts,
  Deals,
  Errors,
  Events,
  Ids,
  Invoicing,
  type Kernel,
  Money,
  Organisation,
  type Pricing,
  Quotes,
  Settings,
  Tasks,
  Transaction
} from "@crm/core"
import { expect } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type { z } from "zod"

export type StoragePorts = Kernel.StoragePorts

export const T0 = Date.parse("2026-01-01T00:00:00.000Z")
/** A timestamp `ms` after a fixed origin, in the wire form (UTC, milliseconds). */
export const at = (ms: number): string => new Date(T0 + ms).toISOString()
export const page = (limit: number, offset = 0) => ({ limit, offset })
export const ids = (rows: ReadonlyArray<{ readonly id: string }>): Array<string> => rows.map((row) => row.id)
export const uuid = (): string => crypto.randomUUID()
/** The amount a JSON number was written as (`amount(99.99)` is `"99.99"`), for the money fields of records. */
export const amount = (n: number): Money.Amount => Money.ofNumber(n)
/** A new id of a kind (`Contacts.ContactId`), for records a contract builds without the kernel. */
export const newId = <K extends z.ZodType<string>>(kind: K): z.output<K> => Ids.brand(kind, uuid())
/** A new organisation's id, for tenants a contract makes up without storing an organisation. */
export const organisationId = (): Organisation.OrganisationId => newId(Organisation.OrganisationId)

/** The order every list promises: newest `created_at` first, ties by id descending. */
export const newestFirst = <A extends { readonly id: string; readonly created_at: string }>(
  rows: ReadonlyArray<A>
): Array<A> =>
  [...rows].sort((a, b) =>
    a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0
  )

/** What every list promises about order and pages (`newestFirst`, at most limit + 1), on records made by `make`. */
export const expectNewestFirstPages = <A extends { readonly id: string; readonly created_at: string }>(
  make: (created_at: string) => A,
  insert: (record: A) => Effect.Effect<void, unknown>,
  list: (limit: number, offset: number) => Effect.Effect<ReadonlyArray<A>, unknown>
) =>
  Effect.gen(function* () {
    const records = [3, 7, 3, 3, 0, 7].map((t) => make(at(t)))
    for (const record of records) yield* insert(record)
    const expected = ids(newestFirst(records))
    expect(ids(yield* list(50, 0))).toEqual(expected)
    expect(ids(yield* list(2, 0))).toEqual(expected.slice(0, 3))
    expect(ids(yield* list(2, 2))).toEqual(expected.slice(2, 5))
    expect(ids(yield* list(2, 6))).toEqual([])
  })

export const settingsFor = (name: string): Settings.Settings => ({
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
      id: newId(Deals.PipelineId),
      name: "Sales",
      stages: [
        { id: newId(Deals.StageId), name: "Qualified", kind: "open", required_fields: [], playbook: [] },
        { id: newId(Deals.StageId), name: "Won", kind: "won", required_fields: ["value"], playbook: [] },
        { id: newId(Deals.StageId), name: "Lost", kind: "lost", required_fields: [], playbook: [] }
      ]
    }
  ],
  record_types: [],
  forms: [],
  stock: { low_stock_threshold: 5 },
  users: []
})

export const organisation = (name: string): Settings.Organisation => ({
  id: organisationId(),
  name,
  settings: settingsFor(name)
})

export const person = (overrides: Partial<Contacts.Contact> = {}): Contacts.Contact => ({
  id: newId(Contacts.ContactId),
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

export const firm = (overrides: Partial<Companies.Company> = {}): Companies.Company => ({
  id: newId(Companies.CompanyId),
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
export const stagesOf = (org: Settings.Organisation) => {
  const pipeline = org.settings.pipelines[0]!
  const [open, won, lost] = pipeline.stages
  return { pipeline: pipeline.id, open: open!.id, won: won!.id, lost: lost!.id }
}

export const opportunity = (org: Settings.Organisation, overrides: Partial<Deals.Deal> = {}): Deals.Deal => ({
  id: newId(Deals.DealId),
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

export const todo = (overrides: Partial<Tasks.Task> = {}): Tasks.Task => ({
  id: newId(Tasks.TaskId),
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

export const line = (overrides: Partial<Pricing.Line> = {}): Pricing.Line => ({
  product_id: null,
  variant_id: null,
  name: "Consulting",
  quantity: 1,
  unit: null,
  unit_price: amount(100),
  vat_rate: 21,
  discount_percent: null,
  net: amount(100),
  vat: amount(21),
  gross: amount(121),
  ...overrides
})

/** Lines and amounts that exercise decimals and more than one VAT rate; new objects on each call. */
export const pricedLines = () => ({
  items: [
    line({
      name: "Audit",
      quantity: 1234.5,
      unit: "h",
      unit_price: amount(0.07),
      discount_percent: 12.5,
      net: amount(75.61),
      vat: amount(15.88),
      gross: amount(91.49)
    }),
    line({
      name: 'Licence\n"pro"',
      quantity: -1,
      unit_price: amount(1e9),
      vat_rate: 0,
      net: amount(-1e9),
      vat: amount(0),
      gross: amount(-1e9)
    })
  ],
  subtotal: amount(1234.5),
  vat_total: amount(0.07),
  total: amount(1234.57),
  vat_summary: [
    { vat_rate: 21, net: amount(75.61), vat: amount(15.88), gross: amount(91.49) },
    { vat_rate: 0, net: amount(-1e9), vat: amount(0), gross: amount(-1e9) }
  ]
})

export const offer = (overrides: Partial<Quotes.Quote> = {}): Quotes.Quote => ({
  id: newId(Quotes.QuoteId),
  number: "Q2026-0001",
  status: "draft",
  revision: 0,
  currency: "EUR",
  contact_id: null,
  company_id: null,
  items: [line()],
  subtotal: amount(100),
  vat_total: amount(21),
  total: amount(121),
  vat_summary: [{ vat_rate: 21, net: amount(100), vat: amount(21), gross: amount(121) }],
  valid_until: null,
  vat_reason: null,
  note: null,
  invoice_id: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

/** A draft unless overridden: no `number` key at all. */
export const bill = (overrides: Partial<Invoicing.Invoice> = {}): Invoicing.Invoice => ({
  id: newId(Invoicing.InvoiceId),
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
  subtotal: amount(100),
  vat_total: amount(21),
  total: amount(121),
  vat_summary: [{ vat_rate: 21, net: amount(100), vat: amount(21), gross: amount(121) }],
  paid_amount: Money.ZERO,
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

export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

export const apiKey = (
  organisationId: Organisation.OrganisationId,
  overrides: Partial<Access.ApiKeyRecord> = {}
): Access.ApiKeyRecord => ({
  id: newId(Access.KeyId),
  organisation_id: organisationId,
  name: null,
  hash: sha256(uuid()),
  scopes: ["read", "write"],
  expires_at: null,
  allowed_ips: [],
  revoked_at: null,
  created_at: at(0),
  owner_id: null,
  created_by: null,
  last_used_at: null,
  grant_id: null,
  client_id: null,
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

export const newKey = (organisationId: Organisation.OrganisationId) =>
  Effect.gen(function* () {
    const key = apiKey(organisationId)
    yield* (yield* Access.AccessRepository).insertKey(key)
    return key
  })

/** The refusal names the live holder of the address, so a client can link to it. */
export const expectEmailTaken = (error: unknown, holder: string): void => {
  expect(error).toBeInstanceOf(Errors.EmailAlreadyExists)
  const refused = error as Errors.EmailAlreadyExists
  expect(refused.code).toBe("email_already_exists")
  expect(refused.detail).toEqual({ id: holder, message: "a live contact already has this email" })
}

export class Boom extends Data.TaggedError("Boom")<{ readonly step: string }> {}

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

export const allEvents = (organisationId: Organisation.OrganisationId) =>
  Effect.flatMap(Events.EventLog, (log) => log.after(organisationId, { since: 0n, event: undefined, limit: 1000 }))

export const expectIncreasing = (eventIds: ReadonlyArray<string>) => {
  for (const id of eventIds) expect(id).toMatch(/^[1-9]\d*$/)
  for (let i = 1; i < eventIds.length; i++) expect(BigInt(eventIds[i]!) > BigInt(eventIds[i - 1]!)).toBe(true)
}
