/** Invoices: drafts, gap-free numbers at issue, payments, stornos, and the exchange rates they use. */

import * as BigDecimal from "effect/BigDecimal"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { z } from "zod"
import { AccessRepository } from "./Access/AccessRepository.js"
import * as BusinessTime from "./BusinessClock/BusinessTime.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { Cursors } from "./Cursors.js"
import {
  invalidField,
  type NotDraft,
  type NotFound,
  NotIssuable,
  type NotPayable,
  type StorageError,
  type TransitionNotAllowed,
  type ValidationFailed
} from "./Errors.js"
import { payloadOf } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { requireProducts } from "./Inventory/ProductLinks.js"
import { ProductRepository } from "./Inventory/ProductRepository.js"
import { deriveDraft } from "./Invoicing/DeriveDraft.js"
import { parseCnb, parseEcb } from "./Invoicing/ExchangeRateFormats.js"
import * as ExchangeRateRule from "./Invoicing/ExchangeRateRule.js"
import { ExchangeRates } from "./Invoicing/ExchangeRates.js"
import { InvoiceId, PaymentId } from "./Invoicing/InvoiceIds.js"
import * as InvoiceNumbering from "./Invoicing/InvoiceNumbering.js"
import { InvoiceRepository } from "./Invoicing/InvoiceRepository.js"
import {
  Invoice,
  type InvoiceCreate,
  type InvoiceIssue,
  type InvoiceListQuery,
  type InvoicePatch,
  type Payment,
  type PaymentCreate,
  type RatesImport
} from "./Invoicing/InvoiceSchemas.js"
import * as InvoiceStatus from "./Invoicing/InvoiceStatus.js"
import { NumberSequence } from "./Invoicing/NumberSequence.js"
import { addDays, yearOf } from "./internal/dates.js"
import { operation } from "./internal/operation.js"
import { merge, nowIso, orNotFound, owningOrganisation } from "./internal/records.js"
import { fromDecimal, toDecimal, ZERO } from "./Money/Amount.js"
import { checkPrecision } from "./Money/Currency.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import { lacksVatReason } from "./Pricing/LineSchemas.js"
import { inputOf, price } from "./Pricing/PricedDocument.js"
import type { QuoteId } from "./Quotes/QuoteIds.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import type { PageResult } from "./Wire.js"

export * from "./Invoicing/ExchangeRateFormats.js"
export * as ExchangeRateRule from "./Invoicing/ExchangeRateRule.js"
export * from "./Invoicing/ExchangeRates.js"
export * as InvoiceNumbering from "./Invoicing/InvoiceNumbering.js"
export * from "./Invoicing/InvoiceRepository.js"
export * from "./Invoicing/InvoiceSchemas.js"
// Not `InvoiceStatus`: that is the schema of the status (from the schemas), which this name would hide.
export * as InvoiceStates from "./Invoicing/InvoiceStatus.js"
export * from "./Invoicing/NumberSequence.js"
export * as VatExemption from "./Invoicing/VatExemption.js"

type Create = z.output<typeof InvoiceCreate>

export class Invoicing extends Context.Tag("@crm/core/Invoicing")<
  Invoicing,
  {
    readonly create: (
      organisation: Organisation,
      input: Create,
      actor: Actor
    ) => Effect.Effect<Invoice, ValidationFailed | StorageError>
    /** The draft an accepted quote becomes: its lines, buyer and currency. */
    readonly draftFromQuote: (
      organisation: Organisation,
      input: Create,
      quoteId: QuoteId
    ) => Effect.Effect<Invoice, ValidationFailed | StorageError>
    readonly get: (organisation: Organisation, id: InvoiceId) => Effect.Effect<Invoice, NotFound | StorageError>
    readonly update: (
      organisation: Organisation,
      id: InvoiceId,
      patch: z.output<typeof InvoicePatch>,
      actor: Actor
    ) => Effect.Effect<Invoice, NotFound | NotDraft | ValidationFailed | StorageError>
    readonly list: (
      organisation: Organisation,
      query: InvoiceListQuery
    ) => Effect.Effect<PageResult<Invoice>, ValidationFailed | StorageError>
    readonly issue: (
      organisation: Organisation,
      id: InvoiceId,
      request: z.output<typeof InvoiceIssue>
    ) => Effect.Effect<Invoice, NotFound | NotDraft | NotIssuable | StorageError>
    readonly pay: (
      organisation: Organisation,
      id: InvoiceId,
      request: z.output<typeof PaymentCreate>
    ) => Effect.Effect<Payment, NotFound | NotPayable | ValidationFailed | StorageError>
    readonly payments: (
      organisation: Organisation,
      id: InvoiceId
    ) => Effect.Effect<ReadonlyArray<Payment>, NotFound | StorageError>
    /** Person-side (admin API): a draft is cancelled outright. */
    readonly cancel: (
      organisation: Organisation,
      id: InvoiceId
    ) => Effect.Effect<Invoice, NotFound | TransitionNotAllowed | StorageError>
    /** Person-side (admin API): reverses an unpaid issued invoice; answers the storno. */
    readonly storno: (
      organisation: Organisation,
      id: InvoiceId
    ) => Effect.Effect<Invoice, NotFound | TransitionNotAllowed | StorageError>
    /** The organisation owning an invoice, for the admin API, which names only the invoice. */
    readonly owner: (id: InvoiceId) => Effect.Effect<Organisation, NotFound | StorageError>
    /** The daily job: issued or partly paid invoices past their due date become overdue. */
    readonly markOverdue: (organisation: Organisation) => Effect.Effect<number, StorageError>
    readonly importRates: (
      request: z.output<typeof RatesImport>
    ) => Effect.Effect<{ readonly imported: number }, ValidationFailed | StorageError>
  }
>() {}

const ISSUED_FIELDS = [
  "id",
  "number",
  "kind",
  "issue_date",
  "due_date",
  "total",
  "currency",
  "contact_id",
  "company_id"
] as const
const PAID_FIELDS = ["id", "number", "total", "paid_amount", "currency", "contact_id"] as const
const issuedPayload = payloadOf(Invoice, ISSUED_FIELDS)
const paidPayload = payloadOf(Invoice, PAID_FIELDS)

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* InvoiceRepository
  const cursors = yield* Cursors
  const access = yield* AccessRepository
  const derive = deriveDraft({ contacts: yield* ContactRepository, companies: yield* CompanyRepository })
  const products = yield* ProductRepository
  const sequence = yield* NumberSequence
  const rates = yield* ExchangeRates
  const events = yield* EventLog
  const tx = yield* Transaction

  const find = (organisationId: OrganisationId, id: InvoiceId) =>
    repo.get(organisationId, id).pipe(orNotFound("invoice"))
  const lock = (organisationId: OrganisationId, id: InvoiceId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("invoice"))
  // Default dates and the overdue job follow the organisation's business clock (a test clock may move it).
  const today = BusinessTime.today

  const createDraft = (organisation: Organisation, input: Create, quoteId: QuoteId | null) =>
    tx.run(
      Effect.gen(function* () {
        const now = yield* nowIso
        const issueDate = input.issue_date ?? (yield* today(organisation))
        const currency = input.currency ?? organisation.settings.default_currency
        const derived = yield* derive(organisation, {
          contact_id: input.contact_id ?? null,
          company_id: input.company_id ?? null,
          currency,
          items: input.items,
          vat_reason: input.vat_reason ?? null
        })
        const invoice: Invoice = {
          id: brand(InvoiceId, ids.next()),
          kind: input.kind ?? "normal",
          status: "draft",
          issue_date: issueDate,
          due_date: input.due_date ?? addDays(issueDate, organisation.settings.payment_terms_days),
          fulfilment_date: input.fulfilment_date ?? issueDate,
          currency,
          exchange_rate: input.exchange_rate ?? null,
          contact_id: input.contact_id ?? null,
          company_id: input.company_id ?? null,
          ...derived,
          paid_amount: ZERO,
          note: input.note ?? null,
          quote_id: quoteId,
          original_invoice_id: null,
          storno_invoice_id: null,
          issued_at: null,
          created_at: now,
          updated_at: now
        }
        yield* repo.insert(organisation.id, invoice)
        return invoice
      })
    )

  /** Central-bank rate for the invoice's currency on its fulfilment date, in the organisation's currency. */
  const centralBankRate = (organisation: Organisation, invoice: Invoice) =>
    Effect.flatMap(today(organisation), (day) =>
      // A fulfilment date still in the future has no published rate yet (decisions page).
      invoice.fulfilment_date > day ? Effect.succeed(Option.none<number>()) : publishedRate(organisation, invoice)
    )

  const publishedRate = (organisation: Organisation, invoice: Invoice) =>
    Effect.map(
      Effect.all([
        rates.latest(invoice.currency, organisation.settings.default_currency, invoice.fulfilment_date),
        rates.latest(organisation.settings.default_currency, invoice.currency, invoice.fulfilment_date)
      ]),
      ([direct, reverse]) => ExchangeRateRule.choose(direct, reverse, invoice.fulfilment_date)
    )

  return Invoicing.of({
    // Only lines a client sends are checked: a quote's lines were checked when the quote got them.
    create: operation("Invoicing.create")((organisation, input) =>
      tx.run(
        Effect.zipRight(requireProducts(products, organisation.id, input.items), createDraft(organisation, input, null))
      )
    ),
    draftFromQuote: operation("Invoicing.draftFromQuote")((organisation, input, quoteId) =>
      createDraft(organisation, input, quoteId)
    ),
    get: (organisation, id) => find(organisation.id, id),
    update: operation("Invoicing.update")(function* (organisation, id, patch) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* Either.match(InvoiceStatus.requireDraft(yield* lock(organisation.id, id)), {
            onLeft: Effect.fail,
            onRight: Effect.succeed
          })
          const now = yield* nowIso
          const { items, ...fields } = patch
          if (items !== undefined) yield* requireProducts(products, organisation.id, items)
          const merged = merge(current, fields)
          const derived = yield* derive(organisation, {
            ...merged,
            items: items ?? current.items.map(inputOf)
          })
          const invoice: Invoice = { ...merged, ...derived, updated_at: now }
          yield* repo.update(organisation.id, invoice)
          return invoice
        })
      )
    }),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "invoices" }, query, (page) =>
        repo.list(
          organisation.id,
          {
            ...(query.status !== undefined ? { status: query.status } : {}),
            ...(query.kind !== undefined ? { kind: query.kind } : {}),
            ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
            ...(query.company_id !== undefined ? { companyId: query.company_id } : {})
          },
          page
        )
      ),
    issue: operation("Invoicing.issue")(function* (organisation, id, request) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* Either.match(InvoiceStatus.requireDraft(yield* lock(organisation.id, id)), {
            onLeft: Effect.fail,
            onRight: Effect.succeed
          })
          if (lacksVatReason(current.items, current.vat_reason)) {
            return yield* new NotIssuable({ detail: "VAT_REASON_REQUIRED" })
          }
          const foreign = current.currency !== organisation.settings.default_currency
          const given = request.exchange_rate ?? current.exchange_rate
          const rate = !foreign
            ? null
            : given !== null
              ? given
              : Option.getOrNull(yield* centralBankRate(organisation, current))
          if (foreign && rate === null) return yield* new NotIssuable({ detail: "RATE_REQUIRED" })
          const now = yield* nowIso
          const year = yearOf(current.issue_date)
          // Allocated in this unit of work: a failure after this line rolls the counter back too.
          const counter = yield* sequence.next(organisation.id, current.kind, year)
          const invoice: Invoice = {
            ...current,
            number: InvoiceNumbering.format(organisation.settings, current.kind, year, counter),
            status: "issued",
            exchange_rate: rate,
            issued_at: now,
            updated_at: now
          }
          yield* repo.update(organisation.id, invoice)
          yield* events.append(organisation.id, [{ event: "invoice.issued", data: issuedPayload(invoice) }], now)
          return invoice
        })
      )
    }),
    pay: operation("Invoicing.pay")(function* (organisation, id, request) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* Either.match(InvoiceStatus.requirePayable(yield* lock(organisation.id, id)), {
            onLeft: Effect.fail,
            onRight: Effect.succeed
          })
          yield* checkPrecision("amount", request.amount, current.currency)
          const outstanding = BigDecimal.subtract(toDecimal(current.total), toDecimal(current.paid_amount))
          const amount = toDecimal(request.amount)
          // The wire schema refuses it too, but an embedder calls the service without one.
          if (!BigDecimal.isPositive(amount)) return yield* invalidField("amount", "must be positive", "too_small")
          if (BigDecimal.greaterThan(amount, outstanding)) {
            return yield* invalidField(
              "amount",
              `exceeds the outstanding ${fromDecimal(outstanding)} ${current.currency}`,
              "exceeds_outstanding"
            )
          }
          const now = yield* nowIso
          const payment: Payment = {
            id: brand(PaymentId, ids.next()),
            invoice_id: current.id,
            amount: request.amount,
            currency: current.currency,
            paid_on: request.paid_on ?? (yield* today(organisation)),
            method: request.method ?? null,
            reference: request.reference ?? null,
            created_at: now
          }
          const paidInFull = BigDecimal.equals(amount, outstanding)
          const invoice: Invoice = {
            ...current,
            paid_amount: fromDecimal(BigDecimal.sum(toDecimal(current.paid_amount), amount)),
            status: InvoiceStatus.afterPayment(paidInFull),
            updated_at: now
          }
          yield* repo.addPayment(organisation.id, payment)
          yield* repo.update(organisation.id, invoice)
          if (paidInFull) {
            yield* events.append(organisation.id, [{ event: "invoice.paid", data: paidPayload(invoice) }], now)
          }
          return payment
        })
      )
    }),
    payments: (organisation, id) => Effect.zipRight(find(organisation.id, id), repo.payments(organisation.id, id)),
    cancel: operation("Invoicing.cancel")(function* (organisation, id) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          const status = yield* InvoiceStatus.cancel(current)
          const invoice: Invoice = { ...current, status, updated_at: yield* nowIso }
          yield* repo.update(organisation.id, invoice)
          return invoice
        })
      )
    }),
    storno: operation("Invoicing.storno")(function* (organisation, id) {
      return yield* tx.run(
        Effect.gen(function* () {
          const original = yield* lock(organisation.id, id)
          const status = yield* InvoiceStatus.reverse(original)
          const now = yield* nowIso
          const issueDate = yield* today(organisation)
          const year = yearOf(issueDate)
          const counter = yield* sequence.next(organisation.id, "storno", year)
          const storno: Invoice = {
            ...original,
            ...price(
              original.items.map((line) => ({ ...inputOf(line), quantity: -line.quantity })),
              original.currency
            ),
            id: brand(InvoiceId, ids.next()),
            number: InvoiceNumbering.format(organisation.settings, "storno", year, counter),
            kind: "storno",
            status: "issued",
            issue_date: issueDate,
            due_date: issueDate,
            paid_amount: ZERO,
            quote_id: null,
            original_invoice_id: original.id,
            storno_invoice_id: null,
            issued_at: now,
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, storno)
          yield* repo.update(organisation.id, { ...original, status, storno_invoice_id: storno.id, updated_at: now })
          yield* events.append(organisation.id, [{ event: "invoice.issued", data: issuedPayload(storno) }], now)
          return storno
        })
      )
    }),
    owner: (id) => owningOrganisation(repo.organisationOf(id), access.getOrganisation, "invoice"),
    markOverdue: (organisation) =>
      tx.run(
        Effect.gen(function* () {
          const day = yield* today(organisation)
          const now = yield* nowIso
          const due = (yield* repo.dueBefore(organisation.id, day)).filter((invoice) =>
            InvoiceStatus.isOverdue(invoice, day)
          )
          yield* Effect.forEach(due, (invoice) =>
            repo.update(organisation.id, { ...invoice, status: "overdue", updated_at: now })
          )
          return due.length
        })
      ),
    importRates: (request) =>
      Either.match(request.format === "cnb" ? parseCnb(request.text) : parseEcb(request.text), {
        onLeft: (message) => Effect.fail(invalidField("text", message, "unparsable")),
        onRight: (parsed) => Effect.map(rates.store(parsed), (imported) => ({ imported }))
      })
  })
})

export const layer = Layer.effect(Invoicing, make)
