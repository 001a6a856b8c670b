/**
 * Rows as the drivers return them, and their domain records. Both drivers are configured alike
 * (`types.ts`: int8 and numeric as strings, json parsed, timestamptz as ISO 8601 text), but the
 * readers below accept either form so that a driver default changing cannot silently corrupt a record.
 */
import {
  Access,
  type Companies,
  Contacts,
  Deals,
  type Errors,
  Events,
  type Idempotency,
  Invoicing,
  Mail,
  Orders,
  type Organisation,
  Pricing,
  Quotes,
  Settings,
  Tasks,
  Wire
} from "@crm/core"
import * as Effect from "effect/Effect"
import { toStorageError } from "./errors.js"
import { amount, amountOrNull, exactNumberOrNull, jsonOf, literalOf, literalOrNullOf } from "./storedValues.js"

type Timestamp = Date | string

/** PostgreSQL's text form (`2026-11-22 09:30:00.123+00`) is not one `Date` parses everywhere. */
const pgTimestamp = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(?::?(\d{2}))?$/

/**
 * The shape of what `types.ts` reads a timestamptz into (and `Date.toISOString()` writes),
 * `YYYY-MM-DDTHH:MM:SS.sssZ`: told by its length and punctuation, not a regular expression, since
 * every timestamp of every page passes here (a regular expression was 1.3 % of a page of events).
 */
const isIsoTimestamp = (value: string): boolean =>
  value.length === 24 && value.charCodeAt(10) === 84 && value.charCodeAt(19) === 46 && value.charCodeAt(23) === 90

export const iso = (value: Timestamp): string => {
  if (value instanceof Date) return value.toISOString()
  if (isIsoTimestamp(value)) return value
  const parts = pgTimestamp.exec(value)
  const normalised = parts === null ? value : `${parts[1]}T${parts[2]}${parts[3]}:${parts[4] ?? "00"}`
  return new Date(normalised).toISOString()
}

export const isoOrNull = (value: Timestamp | null): string | null => (value === null ? null : iso(value))

export const jsonValue = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A

/** int8 arrives as a decimal string; a number or bigint only if a driver was left unconfigured. */
export const decimal = (value: string | number | bigint): string => String(value)

export const count = (value: string | number | bigint): number => Number(value)

type Numeric = string | number

const custom = jsonOf("custom", Wire.Custom)

export const customOf = (value: unknown): Record<string, unknown> => (value === null ? {} : custom(value))

export interface OrganisationRow {
  readonly id: Organisation.OrganisationId
  readonly name: string
  readonly settings: unknown
  /** Selected by every read of an organisation since 0020 (the business clock needs them). */
  readonly test_mode: boolean
  readonly clock_frozen_at: Timestamp | null
}

/** Settings are validated on the way out too: a document that no longer parses is a storage fault, not a 200. */
export const toOrganisation = (row: OrganisationRow): Effect.Effect<Settings.Organisation, Errors.StorageError> => {
  const parsed = Settings.Settings.safeParse(jsonValue(row.settings))
  if (!parsed.success) {
    return Effect.fail(toStorageError(`organisation ${row.id} has invalid stored settings`)(parsed.error))
  }
  const organisation = { id: row.id, name: row.name, settings: parsed.data }
  return Effect.succeed(
    row.test_mode ? { ...organisation, test_clock: { frozen_at: isoOrNull(row.clock_frozen_at) } } : organisation
  )
}

export interface ApiKeyRow {
  readonly id: Access.KeyId
  readonly organisation_id: Organisation.OrganisationId
  readonly name: string | null
  readonly hash: string
  readonly scopes: ReadonlyArray<string>
  readonly expires_at: Timestamp | null
  readonly allowed_ips: ReadonlyArray<string>
  readonly revoked_at: Timestamp | null
  readonly created_at: Timestamp
  readonly owner_id: Organisation.UserId | null
}

const scope = literalOf("scopes", Access.Scope)

export const toApiKey = (row: ApiKeyRow): Access.ApiKeyRecord => ({
  id: row.id,
  organisation_id: row.organisation_id,
  name: row.name,
  hash: row.hash,
  // The column is plain text[]: a scope the core no longer knows must not grant anything.
  scopes: row.scopes.map(scope),
  expires_at: isoOrNull(row.expires_at),
  allowed_ips: row.allowed_ips,
  revoked_at: isoOrNull(row.revoked_at),
  created_at: iso(row.created_at),
  owner_id: row.owner_id ?? null
})

export interface IdempotencyRow {
  readonly fingerprint: string
  readonly payload: string
  readonly created_at: Timestamp
}

export const toIdempotencyRecord = (row: IdempotencyRow): Idempotency.IdempotencyRecord => ({
  fingerprint: row.fingerprint,
  payload: row.payload,
  created_at: iso(row.created_at)
})

/** `data` selected as text (`data::text`): the payload exactly as appended, for `Events.envelopeOfText`. */
export interface EventRow {
  readonly id: string | number | bigint
  readonly event: string
  readonly data: string
  readonly created_at: Timestamp
}

export const toEvent = (row: EventRow): Events.EventEnvelope =>
  // Only catalogue names are ever appended (the port's type), so the column holds nothing else.
  Events.envelopeOfText(decimal(row.id), row.event as Events.EventName, row.data, iso(row.created_at))

export interface ContactRow {
  readonly id: Contacts.ContactId
  readonly first_name: string | null
  readonly last_name: string | null
  readonly email: string | null
  readonly phone: string | null
  readonly company_id: Companies.CompanyId | null
  readonly status: string
  readonly source: string | null
  readonly custom: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const contactStatus = literalOf("status", Contacts.Contact.shape.status)

export const toContact = (row: ContactRow): Contacts.Contact => ({
  id: row.id,
  first_name: row.first_name,
  last_name: row.last_name,
  email: row.email,
  phone: row.phone,
  company_id: row.company_id,
  status: contactStatus(row.status),
  source: row.source,
  custom: customOf(row.custom),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface CompanyRow {
  readonly id: Companies.CompanyId
  readonly name: string
  readonly domain: string | null
  readonly email: string | null
  readonly vat_number: string | null
  readonly city: string | null
  readonly country: string | null
  readonly custom: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

export const toCompany = (row: CompanyRow): Companies.Company => ({
  id: row.id,
  name: row.name,
  domain: row.domain,
  email: row.email,
  vat_number: row.vat_number,
  city: row.city,
  country: row.country,
  custom: customOf(row.custom),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface DealRow {
  readonly id: Deals.DealId
  readonly title: string
  readonly value: Numeric | null
  readonly currency: string
  readonly pipeline_id: Deals.PipelineId
  readonly status_id: Deals.StageId
  readonly status_kind: string
  readonly contact_id: Contacts.ContactId | null
  readonly company_id: Companies.CompanyId | null
  readonly owner_id: Organisation.UserId | null
  /** Read as text (`YYYY-MM-DD`), never through a `Date`. */
  readonly expected_close_date: string | null
  readonly lost_reason: string | null
  readonly closed_at: Timestamp | null
  readonly custom: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const dealStatusKind = literalOf("status_kind", Deals.Deal.shape.status_kind)

export const toDeal = (row: DealRow): Deals.Deal => ({
  id: row.id,
  title: row.title,
  value: amountOrNull("value", row.value),
  currency: row.currency,
  pipeline_id: row.pipeline_id,
  status_id: row.status_id,
  status_kind: dealStatusKind(row.status_kind),
  contact_id: row.contact_id,
  company_id: row.company_id,
  owner_id: row.owner_id,
  expected_close_date: row.expected_close_date,
  lost_reason: row.lost_reason,
  closed_at: isoOrNull(row.closed_at),
  custom: customOf(row.custom),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface StageVisitRow {
  readonly deal_id: Deals.DealId
  readonly pipeline_id: Deals.PipelineId
  readonly from_status_id: Deals.StageId | null
  readonly status_id: Deals.StageId
  readonly status_kind: string
  readonly entered_at: Timestamp
  readonly left_at: Timestamp | null
  readonly key_id: Access.KeyId | null
}

const visitStatusKind = literalOf("status_kind", Deals.StageVisit.shape.status_kind)

export const toStageVisit = (row: StageVisitRow): Deals.StageVisit => ({
  deal_id: row.deal_id,
  pipeline_id: row.pipeline_id,
  from_status_id: row.from_status_id,
  status_id: row.status_id,
  status_kind: visitStatusKind(row.status_kind),
  entered_at: iso(row.entered_at),
  left_at: isoOrNull(row.left_at),
  key_id: row.key_id
})

export interface TaskRow {
  readonly id: Tasks.TaskId
  readonly title: string
  readonly type: string
  readonly priority: string
  readonly due_at: Timestamp | null
  readonly done: boolean
  readonly completed_at: Timestamp | null
  readonly assignee_id: Organisation.UserId | null
  readonly entity_type: string | null
  readonly entity_id: string | null
  readonly description: string | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const taskPriority = literalOf("priority", Tasks.Task.shape.priority)
const taskEntityType = literalOrNullOf("entity_type", Tasks.Task.shape.entity_type.unwrap())

export const toTask = (row: TaskRow): Tasks.Task => ({
  id: row.id,
  title: row.title,
  type: row.type,
  priority: taskPriority(row.priority),
  due_at: isoOrNull(row.due_at),
  done: row.done,
  completed_at: isoOrNull(row.completed_at),
  assignee_id: row.assignee_id,
  entity_type: taskEntityType(row.entity_type),
  entity_id: row.entity_id,
  description: row.description,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

/** The columns every priced document (quote, invoice) carries. */
interface DocumentAmountsRow {
  readonly items: unknown
  readonly subtotal: Numeric
  readonly vat_total: Numeric
  readonly total: Numeric
  readonly vat_summary: unknown
}

const vatSummary = jsonOf("vat_summary", Pricing.DocumentAmounts.vat_summary)

/** Beside each document's own lines (`items`), which differ between orders and the others. */
const documentAmounts = (row: DocumentAmountsRow) => ({
  subtotal: amount("subtotal", row.subtotal),
  vat_total: amount("vat_total", row.vat_total),
  total: amount("total", row.total),
  vat_summary: vatSummary(row.vat_summary)
})

export interface QuoteRow extends DocumentAmountsRow {
  readonly id: Quotes.QuoteId
  readonly number: string
  readonly status: string
  readonly revision: number
  readonly currency: string
  readonly contact_id: Contacts.ContactId | null
  readonly company_id: Companies.CompanyId | null
  /** Read as text (`YYYY-MM-DD`), never through a `Date`. */
  readonly valid_until: string | null
  readonly vat_reason: string | null
  readonly note: string | null
  readonly invoice_id: Invoicing.InvoiceId | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const quoteStatus = literalOf("status", Quotes.Quote.shape.status)
const quoteLines = jsonOf("items", Quotes.Quote.shape.items)

export const toQuote = (row: QuoteRow): Quotes.Quote => ({
  id: row.id,
  number: row.number,
  status: quoteStatus(row.status),
  revision: Number(row.revision),
  currency: row.currency,
  contact_id: row.contact_id,
  company_id: row.company_id,
  items: quoteLines(row.items),
  ...documentAmounts(row),
  valid_until: row.valid_until,
  vat_reason: row.vat_reason,
  note: row.note,
  invoice_id: row.invoice_id,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface QuoteRevisionRow {
  readonly quote_id: Quotes.QuoteId
  readonly revision: number
  readonly sent_at: Timestamp
  readonly quote: unknown
}

const revisedQuote = jsonOf("quote", Quotes.QuoteRevision.shape.quote)

export const toQuoteRevision = (row: QuoteRevisionRow): Quotes.QuoteRevision => ({
  quote_id: row.quote_id,
  revision: Number(row.revision),
  sent_at: iso(row.sent_at),
  quote: revisedQuote(row.quote)
})

export interface InvoiceRow extends DocumentAmountsRow {
  readonly id: Invoicing.InvoiceId
  /** NULL on a draft. */
  readonly number: string | null
  readonly kind: string
  readonly status: string
  /** The three dates are read as text (`YYYY-MM-DD`), never through a `Date`. */
  readonly issue_date: string
  readonly due_date: string
  readonly fulfilment_date: string
  readonly currency: string
  readonly exchange_rate: Numeric | null
  readonly contact_id: Contacts.ContactId | null
  readonly company_id: Companies.CompanyId | null
  readonly buyer: unknown
  readonly paid_amount: Numeric
  readonly vat_reason: string | null
  readonly note: string | null
  readonly quote_id: Quotes.QuoteId | null
  readonly original_invoice_id: Invoicing.InvoiceId | null
  readonly storno_invoice_id: Invoicing.InvoiceId | null
  readonly issued_at: Timestamp | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const invoiceKind = literalOf("kind", Invoicing.Invoice.shape.kind)
const invoiceStatus = literalOf("status", Invoicing.Invoice.shape.status)
const invoiceLines = jsonOf("items", Invoicing.Invoice.shape.items)
const buyer = jsonOf("buyer", Invoicing.Invoice.shape.buyer)

export const toInvoice = (row: InvoiceRow): Invoicing.Invoice => ({
  id: row.id,
  // A draft has no number at all: the key is left out rather than set to undefined or null.
  ...(row.number === null ? {} : { number: row.number }),
  kind: invoiceKind(row.kind),
  status: invoiceStatus(row.status),
  issue_date: row.issue_date,
  due_date: row.due_date,
  fulfilment_date: row.fulfilment_date,
  currency: row.currency,
  exchange_rate: exactNumberOrNull("exchange_rate", row.exchange_rate),
  contact_id: row.contact_id,
  company_id: row.company_id,
  buyer: buyer(row.buyer),
  items: invoiceLines(row.items),
  ...documentAmounts(row),
  paid_amount: amount("paid_amount", row.paid_amount),
  vat_reason: row.vat_reason,
  note: row.note,
  quote_id: row.quote_id,
  original_invoice_id: row.original_invoice_id,
  storno_invoice_id: row.storno_invoice_id,
  issued_at: isoOrNull(row.issued_at),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface PaymentRow {
  readonly id: Invoicing.PaymentId
  readonly invoice_id: Invoicing.InvoiceId
  readonly amount: Numeric
  readonly currency: string
  /** Read as text (`YYYY-MM-DD`). */
  readonly paid_on: string
  readonly method: string | null
  readonly reference: string | null
  readonly created_at: Timestamp
}

export const toPayment = (row: PaymentRow): Invoicing.Payment => ({
  id: row.id,
  invoice_id: row.invoice_id,
  amount: amount("amount", row.amount),
  currency: row.currency,
  paid_on: row.paid_on,
  method: row.method,
  reference: row.reference,
  created_at: iso(row.created_at)
})

/** `date` and `rate` read as text: the day as published, the rate exactly as stored. */
export interface ExchangeRateRow {
  readonly date: string
  readonly from_currency: string
  readonly to_currency: string
  readonly rate: string
}

export const toPublishedRate = (row: ExchangeRateRow): Invoicing.PublishedRate => ({
  date: row.date,
  from: row.from_currency,
  to: row.to_currency,
  rate: row.rate
})

export interface OrderRow extends DocumentAmountsRow {
  readonly id: Orders.OrderId
  readonly order_number: string
  readonly external_id: string
  readonly fulfilment: string
  readonly payment_status: string
  readonly payment_method: string | null
  readonly currency: string
  readonly tracking_url: string | null
  readonly contact_id: Contacts.ContactId
  readonly deal_id: Deals.DealId | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const orderFulfilment = literalOf("fulfilment", Orders.Order.shape.fulfilment)
const orderPaymentStatus = literalOf("payment_status", Orders.Order.shape.payment_status)
const orderPaymentMethod = literalOrNullOf("payment_method", Orders.Order.shape.payment_method.unwrap())
const orderLines = jsonOf("items", Orders.Order.shape.items)

export const toOrder = (row: OrderRow): Orders.Order => ({
  id: row.id,
  order_number: row.order_number,
  external_id: row.external_id,
  fulfilment: orderFulfilment(row.fulfilment),
  payment_status: orderPaymentStatus(row.payment_status),
  payment_method: orderPaymentMethod(row.payment_method),
  currency: row.currency,
  items: orderLines(row.items),
  ...documentAmounts(row),
  tracking_url: row.tracking_url,
  contact_id: row.contact_id,
  deal_id: row.deal_id,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface MailRow {
  readonly id: Mail.MailMessageId
  readonly organisation_id: Organisation.OrganisationId
  readonly recipient: string
  readonly subject: string
  readonly body: string
  readonly status: string
  readonly attempts: number
  readonly last_error: string | null
  readonly next_attempt_at: Timestamp | null
  readonly created_at: Timestamp
  readonly sent_at: Timestamp | null
}

const mailStatus = literalOf("status", Mail.MailMessage.shape.status)

export const toMailMessage = (row: MailRow): Mail.MailMessage => ({
  id: row.id,
  to: row.recipient,
  subject: row.subject,
  body: row.body,
  status: mailStatus(row.status),
  attempts: Number(row.attempts),
  last_error: row.last_error,
  next_attempt_at: isoOrNull(row.next_attempt_at),
  created_at: iso(row.created_at),
  sent_at: isoOrNull(row.sent_at)
})
