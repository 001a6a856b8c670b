/**
 * What an import line may be: one entry per `type`, naming the zod input schema of a kernel
 * operation (the same one REST validates with) and running that operation, so every rule and
 * event of the contract applies to imported data as to data sent one request at a time. A context
 * joins the import with one entry here.
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { z } from "zod"
import type { Outcome, Upserted } from "../Batch.js"
import { BookingCreate, Bookings, SeriesCreate } from "../Bookings.js"
import { CallLog, Calls } from "../Calls.js"
import { Companies, CompanyCreate, CompanyUpsert } from "../Companies.js"
import { ContactCreate, Contacts, ContactUpsert } from "../Contacts.js"
import { DealCreate, Deals } from "../Deals.js"
import type { DomainError, StorageError } from "../Errors.js"
import { ProductId } from "../Inventory/ProductIds.js"
import { Inventory, ProductCreate, ProductUpsert, StockMove } from "../Inventory.js"
import { InvoiceCreate, Invoicing } from "../Invoicing.js"
import { LinkPageCreate, LinkPages } from "../LinkPages.js"
import { NoteCreate, Notes } from "../Notes.js"
import { OrderCreate, Orders } from "../Orders.js"
import type { Organisation } from "../Organisation.js"
import { PurchaseOrderCreate, PurchaseOrders } from "../PurchaseOrders.js"
import { QuoteCreate, Quotes } from "../Quotes.js"
import { RecordCreate, Records } from "../Records.js"
import type { Actor } from "../Resource.js"
import { ReturnCreate, Returns } from "../Returns.js"
import { PageCreate, PostCreate, SiteCreate, Sites } from "../Sites.js"
import { TaskCreate, Tasks } from "../Tasks.js"
import { TicketCreate, Tickets } from "../Tickets.js"

/**
 * How a kind with a natural key is upserted in an import run with `mode: upsert`: a line carrying
 * the key (`field`) goes through the resource's upsert, keyed as `PUT /{resource}/by-{field}/...`.
 */
export interface ImportUpsert<R> {
  readonly field: string
  readonly schema: z.ZodType
  /** The key's lock, taken for every line up front (see `Batch.upsertAll`). */
  readonly lockKey: (key: string) => Effect.Effect<string, never, R>
  readonly run: (
    organisation: Organisation,
    input: unknown,
    actor: Actor
  ) => Effect.Effect<{ readonly id: string; readonly outcome: Outcome }, DomainError | StorageError, R>
}

export interface ImportKind<S extends z.ZodType, R> {
  /** The kernel operation's input schema; a line's fields (without `type` and `ref`) must pass it. */
  readonly schema: S
  /**
   * Where the operation's input has a `type` field of its own (a record's type key, a note's kind),
   * the line carries it under this name, since a line's `type` names the kind.
   */
  readonly ownType: string | undefined
  /** Runs the kernel operation and answers the id of what it created. */
  readonly run: (
    organisation: Organisation,
    input: z.output<S>,
    actor: Actor
  ) => Effect.Effect<string, DomainError | StorageError, R>
  readonly upsert: ImportUpsert<R> | undefined
}

/** Keeps each entry's `run` typed against its own schema. */
const kind = <S extends z.ZodType, R>(
  schema: S,
  run: (
    organisation: Organisation,
    input: z.output<S>,
    actor: Actor
  ) => Effect.Effect<{ readonly id: string }, DomainError | StorageError, R>,
  ownType?: string,
  upsert?: ImportUpsert<R>
): ImportKind<S, R> => ({
  schema,
  ownType,
  run: (organisation, input, actor) => Effect.map(run(organisation, input, actor), (created) => created.id),
  upsert
})

/** The upsert of a kind whose service offers one (contacts, companies, products). */
const upserting = <U extends z.ZodType, A extends { readonly id: string }, Id, S>(
  field: string,
  schema: U,
  tag: Context.Tag<Id, S>,
  operations: (service: S) => {
    readonly upsert: (
      organisation: Organisation,
      input: z.output<U>,
      actor: Actor
    ) => Effect.Effect<Upserted<A>, DomainError | StorageError>
    readonly upsertKey: (input: z.output<U>) => string
  }
): ImportUpsert<Id> => ({
  field,
  schema,
  lockKey: (key) => Effect.map(tag, (service) => operations(service).upsertKey({ [field]: key } as z.output<U>)),
  run: (organisation, input, actor) =>
    Effect.flatMap(tag, (service) =>
      Effect.map(operations(service).upsert(organisation, input as z.output<U>, actor), ({ record, outcome }) => ({
        id: record.id,
        outcome
      }))
    )
})

export const KINDS = {
  contact: kind(
    ContactCreate,
    (organisation, input, actor) => Effect.flatMap(Contacts, (service) => service.create(organisation, input, actor)),
    undefined,
    upserting("email", ContactUpsert, Contacts, (service) => service)
  ),
  company: kind(
    CompanyCreate,
    (organisation, input, actor) => Effect.flatMap(Companies, (service) => service.create(organisation, input, actor)),
    undefined,
    upserting("domain", CompanyUpsert, Companies, (service) => service)
  ),
  deal: kind(DealCreate, (organisation, input, actor) =>
    Effect.flatMap(Deals, (service) => service.create(organisation, input, actor))
  ),
  task: kind(TaskCreate, (organisation, input, actor) =>
    Effect.flatMap(Tasks, (service) => service.create(organisation, input, actor))
  ),
  note: kind(
    NoteCreate,
    (organisation, input, actor) =>
      Effect.map(
        Effect.flatMap(Notes, (service) => service.log(organisation, input, actor)),
        (logged) => logged.note
      ),
    "note_type"
  ),
  call: kind(CallLog, (organisation, input) => Effect.flatMap(Calls, (service) => service.log(organisation, input))),
  product: kind(
    ProductCreate,
    (organisation, input, actor) => Effect.flatMap(Inventory, (service) => service.create(organisation, input, actor)),
    undefined,
    upserting("sku", ProductUpsert, Inventory, (service) => service)
  ),
  // A stock movement or stocktake (the stock endpoint's body plus the product); its id is the product's.
  stock: kind(
    StockMove.safeExtend({ product_id: ProductId.describe("the product whose stock moves") }),
    (organisation, { product_id, ...move }, actor) =>
      Effect.flatMap(Inventory, (service) => service.move(organisation, product_id, move, actor))
  ),
  record: kind(
    RecordCreate,
    (organisation, input, actor) => Effect.flatMap(Records, (service) => service.create(organisation, input, actor)),
    "record_type"
  ),
  quote: kind(QuoteCreate, (organisation, input, actor) =>
    Effect.flatMap(Quotes, (service) => service.create(organisation, input, actor))
  ),
  invoice: kind(InvoiceCreate, (organisation, input, actor) =>
    Effect.flatMap(Invoicing, (service) => service.create(organisation, input, actor))
  ),
  order: kind(OrderCreate, (organisation, input, actor) =>
    Effect.flatMap(Orders, (service) => service.create(organisation, input, actor))
  ),
  return: kind(ReturnCreate, (organisation, input) =>
    Effect.flatMap(Returns, (service) => service.create(organisation, input))
  ),
  ticket: kind(TicketCreate, (organisation, input) =>
    Effect.flatMap(Tickets, (service) => service.create(organisation, input))
  ),
  purchase_order: kind(PurchaseOrderCreate, (organisation, input) =>
    Effect.flatMap(PurchaseOrders, (service) => service.create(organisation, input))
  ),
  site: kind(SiteCreate, (organisation, input) =>
    Effect.flatMap(Sites, (service) => service.createSite(organisation, input))
  ),
  page: kind(PageCreate, (organisation, input) =>
    Effect.flatMap(Sites, (service) => service.createPage(organisation, input))
  ),
  post: kind(PostCreate, (organisation, input) =>
    Effect.flatMap(Sites, (service) => service.createPost(organisation, input))
  ),
  link_page: kind(LinkPageCreate, (organisation, input) =>
    Effect.flatMap(LinkPages, (service) => service.create(organisation, input))
  ),
  booking_series: kind(SeriesCreate, (organisation, input) =>
    Effect.flatMap(Bookings, (service) => service.createSeries(organisation, input))
  ),
  booking: kind(BookingCreate, (organisation, input) =>
    Effect.flatMap(Bookings, (service) => service.create(organisation, input))
  )
}

export type ImportType = keyof typeof KINDS
export const IMPORT_TYPES = Object.keys(KINDS) as ReadonlyArray<ImportType>

/** Every kernel service some kind runs: what the import service needs. */
export type ImportServices = {
  readonly [K in ImportType]: (typeof KINDS)[K] extends ImportKind<z.ZodType, infer R> ? R : never
}[ImportType]

export const isImportType = (type: string): type is ImportType => Object.hasOwn(KINDS, type)
