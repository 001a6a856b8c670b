/** Quotes: priced offers, numbered at creation, sent (each send freezes a revision), then answered. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { z } from "zod"
import { AccessRepository } from "./Access/AccessRepository.js"
import * as BusinessTime from "./BusinessClock/BusinessTime.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { Cursors } from "./Cursors.js"
import {
  AlreadyInvoiced,
  invalidField,
  NotDraft,
  type NotFound,
  type StorageError,
  TransitionNotAllowed,
  type ValidationFailed
} from "./Errors.js"
import { payloadOf } from "./Events/EventCatalogue.js"
import { EventLog, type NewEvent } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { requireProducts } from "./Inventory/ProductLinks.js"
import { ProductRepository } from "./Inventory/ProductRepository.js"
import { buyerOf } from "./Invoicing/BuyerOf.js"
import * as InvoiceNumbering from "./Invoicing/InvoiceNumbering.js"
import type { Buyer, Invoice } from "./Invoicing/InvoiceSchemas.js"
import { NumberSequence } from "./Invoicing/NumberSequence.js"
import { Invoicing } from "./Invoicing.js"
import { yearOf } from "./internal/dates.js"
import { operation } from "./internal/operation.js"
import { merge, nowIso, orNotFound, owningOrganisation, partyLinks } from "./internal/records.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import { lacksVatReason } from "./Pricing/LineSchemas.js"
import { inputOf, price } from "./Pricing/PricedDocument.js"
import { QuoteId } from "./Quotes/QuoteIds.js"
import { QuoteRepository } from "./Quotes/QuoteRepository.js"
import {
  Quote,
  type QuoteCreate,
  type QuoteListQuery,
  type QuotePatch,
  type QuoteRevision
} from "./Quotes/QuoteSchemas.js"
import * as QuoteStatus from "./Quotes/QuoteStatus.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import type { PageResult } from "./Wire.js"

export * from "./Quotes/QuoteRepository.js"
export * from "./Quotes/QuoteSchemas.js"
// Not `QuoteStatus`: that is the schema of the status (from the schemas), which this name would hide.
export * as QuoteStates from "./Quotes/QuoteStatus.js"

export type PersonAction = Exclude<QuoteStatus.QuoteAction, "expire">

export class Quotes extends Context.Tag("@crm/core/Quotes")<
  Quotes,
  {
    readonly create: (
      organisation: Organisation,
      input: z.output<typeof QuoteCreate>,
      actor: Actor
    ) => Effect.Effect<Quote, ValidationFailed | StorageError>
    readonly get: (organisation: Organisation, id: QuoteId) => Effect.Effect<Quote, NotFound | StorageError>
    /**
     * The quote with the buyer it addresses, for its PDF: a quote freezes no buyer, so this is its
     * company (else its contact) as it is now.
     */
    readonly addressed: (
      organisation: Organisation,
      id: QuoteId
    ) => Effect.Effect<{ readonly quote: Quote; readonly buyer: Buyer }, NotFound | StorageError>
    readonly update: (
      organisation: Organisation,
      id: QuoteId,
      patch: z.output<typeof QuotePatch>,
      actor: Actor
    ) => Effect.Effect<Quote, NotFound | NotDraft | ValidationFailed | StorageError>
    readonly list: (
      organisation: Organisation,
      query: QuoteListQuery
    ) => Effect.Effect<PageResult<Quote>, ValidationFailed | StorageError>
    /** Person-side transitions (admin API): send, accept, reject, cancel. */
    readonly transition: (
      organisation: Organisation,
      id: QuoteId,
      action: PersonAction
    ) => Effect.Effect<Quote, NotFound | TransitionNotAllowed | StorageError>
    /** The organisation owning a quote, for the admin API, which names only the quote. */
    readonly owner: (id: QuoteId) => Effect.Effect<Organisation, NotFound | StorageError>
    readonly revisions: (
      organisation: Organisation,
      id: QuoteId
    ) => Effect.Effect<ReadonlyArray<QuoteRevision>, NotFound | StorageError>
    /** An accepted quote becomes an invoice draft with the same lines, once. */
    readonly invoice: (
      organisation: Organisation,
      id: QuoteId
    ) => Effect.Effect<Invoice, NotFound | TransitionNotAllowed | AlreadyInvoiced | ValidationFailed | StorageError>
    /** The daily job: sent quotes past `valid_until` expire. */
    readonly expire: (organisation: Organisation) => Effect.Effect<number, StorageError>
  }
>() {}

const CREATED_FIELDS = ["id", "number", "status", "total", "currency", "contact_id"] as const
const ANSWERED_FIELDS = ["id", "number", "total", "contact_id"] as const
const createdPayload = payloadOf(Quote, CREATED_FIELDS)
const answeredPayload = payloadOf(Quote, ANSWERED_FIELDS)

const answeredEvent = (quote: Quote): ReadonlyArray<NewEvent> =>
  quote.status === "accepted"
    ? [{ event: "quote.accepted", data: answeredPayload(quote) }]
    : quote.status === "rejected"
      ? [{ event: "quote.rejected", data: answeredPayload(quote) }]
      : []

/** On a quote a zero-rate line without a reason is refused at once (on an invoice only at issue). */
const requireVatReason = (quote: Quote) =>
  lacksVatReason(quote.items, quote.vat_reason)
    ? Effect.fail(invalidField("vat_reason", "required when a line has a zero VAT rate", "required"))
    : Effect.void

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* QuoteRepository
  const cursors = yield* Cursors
  const access = yield* AccessRepository
  const contacts = yield* ContactRepository
  const companies = yield* CompanyRepository
  const products = yield* ProductRepository
  const invoicing = yield* Invoicing
  const sequence = yield* NumberSequence
  const events = yield* EventLog
  const tx = yield* Transaction

  const find = (organisationId: OrganisationId, id: QuoteId) => repo.get(organisationId, id).pipe(orNotFound("quote"))
  const lock = (organisationId: OrganisationId, id: QuoteId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("quote"))
  const requireLinks = partyLinks(contacts, companies)

  return Quotes.of({
    create: operation("Quotes.create")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          yield* requireLinks(organisation.id, input)
          yield* requireProducts(products, organisation.id, input.items)
          const now = yield* nowIso
          const year = yearOf(yield* BusinessTime.today(organisation))
          const currency = input.currency ?? organisation.settings.default_currency
          const draft = {
            id: brand(QuoteId, ids.next()),
            status: "draft" as const,
            revision: 0,
            currency,
            contact_id: input.contact_id ?? null,
            company_id: input.company_id ?? null,
            ...price(input.items, currency),
            valid_until: input.valid_until ?? null,
            vat_reason: input.vat_reason ?? null,
            note: input.note ?? null,
            invoice_id: null,
            created_at: now,
            updated_at: now
          }
          yield* requireVatReason({ ...draft, number: "" })
          const counter = yield* sequence.next(organisation.id, "quote", year)
          const quote: Quote = {
            ...draft,
            number: InvoiceNumbering.format(organisation.settings, "quote", year, counter)
          }
          yield* repo.insert(organisation.id, quote)
          yield* events.append(organisation.id, [{ event: "quote.created", data: createdPayload(quote) }], now)
          return quote
        })
      )
    }),
    get: (organisation, id) => find(organisation.id, id),
    addressed: (organisation, id) =>
      Effect.gen(function* () {
        const quote = yield* find(organisation.id, id)
        const contact =
          quote.contact_id === null ? Option.none() : yield* contacts.get(organisation.id, quote.contact_id)
        const company =
          quote.company_id === null ? Option.none() : yield* companies.get(organisation.id, quote.company_id)
        return { quote, buyer: buyerOf(Option.getOrUndefined(contact), Option.getOrUndefined(company)) }
      }),
    update: operation("Quotes.update")(function* (organisation, id, patch) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          if (current.status !== "draft") {
            return yield* new NotDraft({ detail: `the quote is ${current.status}, not a draft` })
          }
          yield* requireLinks(organisation.id, patch)
          const { items, ...fields } = patch
          // Lines kept as they are were checked when they were sent.
          if (items !== undefined) yield* requireProducts(products, organisation.id, items)
          const merged = merge(current, fields)
          const quote: Quote = {
            ...merged,
            ...price(items ?? current.items.map(inputOf), merged.currency),
            updated_at: yield* nowIso
          }
          yield* requireVatReason(quote)
          yield* repo.update(organisation.id, quote)
          return quote
        })
      )
    }),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "quotes" }, query, (page) =>
        repo.list(
          organisation.id,
          {
            ...(query.status !== undefined ? { status: query.status } : {}),
            ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
            ...(query.company_id !== undefined ? { companyId: query.company_id } : {})
          },
          page
        )
      ),
    transition: operation("Quotes.transition")(function* (organisation, id, action) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          const status = yield* QuoteStatus.transition(current.status, action)
          const now = yield* nowIso
          const quote: Quote = {
            ...current,
            status,
            revision: action === "send" ? current.revision + 1 : current.revision,
            updated_at: now
          }
          yield* repo.update(organisation.id, quote)
          if (action === "send") {
            yield* repo.addRevision(organisation.id, {
              quote_id: quote.id,
              revision: quote.revision,
              sent_at: now,
              quote
            })
          }
          const answered = answeredEvent(quote)
          if (answered.length > 0) yield* events.append(organisation.id, answered, now)
          return quote
        })
      )
    }),
    owner: (id) => owningOrganisation(repo.organisationOf(id), access.getOrganisation, "quote"),
    revisions: (organisation, id) => Effect.zipRight(find(organisation.id, id), repo.revisions(organisation.id, id)),
    invoice: operation("Quotes.invoice")(function* (organisation, id) {
      return yield* tx.run(
        Effect.gen(function* () {
          const quote = yield* lock(organisation.id, id)
          if (quote.status !== "accepted") {
            return yield* new TransitionNotAllowed({
              detail: { from: quote.status, to: "invoiced", message: "only an accepted quote becomes an invoice" }
            })
          }
          if (quote.invoice_id !== null) {
            return yield* new AlreadyInvoiced({ detail: { invoice_id: quote.invoice_id } })
          }
          const invoice = yield* invoicing.draftFromQuote(
            organisation,
            {
              contact_id: quote.contact_id,
              company_id: quote.company_id,
              currency: quote.currency,
              items: quote.items.map(inputOf),
              vat_reason: quote.vat_reason,
              note: quote.note
            },
            quote.id
          )
          yield* repo.update(organisation.id, { ...quote, invoice_id: invoice.id, updated_at: invoice.created_at })
          return invoice
        })
      )
    }),
    expire: (organisation) =>
      tx.run(
        Effect.gen(function* () {
          // By the business clock: a test clock moved past `valid_until` expires the quote.
          const today = yield* BusinessTime.today(organisation)
          const now = yield* nowIso
          const due = yield* repo.sentExpiringBefore(organisation.id, today)
          // The store hands out sent quotes only, which the machine lets expire: anything else is a defect.
          yield* Effect.forEach(due, (quote) =>
            Effect.flatMap(Effect.orDie(QuoteStatus.transition(quote.status, "expire")), (status) =>
              repo.update(organisation.id, { ...quote, status, updated_at: now })
            )
          )
          return due.length
        })
      )
  })
})

export const layer = Layer.effect(Quotes, make)
