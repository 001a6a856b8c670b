/**
 * The tables of organisations, keys, events and the sales and billing contexts, each declared once
 * (`columns.ts`), and their domain records. Both drivers are configured alike (`types.ts`: int8 and
 * numeric as strings, json parsed, timestamptz as ISO 8601 text), but the readers accept either
 * form so that a driver default changing cannot silently corrupt a record.
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
  type People,
  Pricing,
  Quotes,
  Settings,
  Tasks
} from "@crm/core"
import * as Effect from "effect/Effect"
import {
  boolean,
  custom,
  date,
  exact,
  integer,
  json,
  literal,
  literals,
  money,
  nullable,
  type RowOfTable,
  table,
  text,
  texts,
  timestamp,
  uuid
} from "./columns.js"
import { toStorageError } from "./errors.js"
import { decimal, iso, jsonValue, literalOf } from "./storedValues.js"

/** What every read of an organisation selects; the settings document is parsed whole (`toOrganisation`). */
export const organisationTable = table("organisations", {
  id: uuid<Organisation.OrganisationId>(),
  name: text(),
  settings: () => ({ cast: "::jsonb", readAs: undefined, read: jsonValue<unknown>, write: JSON.stringify }),
  /** Selected by every read of an organisation since 0020 (the business clock needs them). */
  test_mode: boolean(),
  clock_frozen_at: nullable(timestamp())
})
export type OrganisationRow = RowOfTable<typeof organisationTable>

/** Settings are validated on the way out too: a document that no longer parses is a storage fault, not a 200. */
export const toOrganisation = (row: OrganisationRow): Effect.Effect<Settings.Organisation, Errors.StorageError> => {
  const read = organisationTable.read(row)
  const parsed = Settings.Settings.safeParse(read.settings)
  if (!parsed.success) {
    return Effect.fail(toStorageError(`organisation ${read.id} has invalid stored settings`)(parsed.error))
  }
  const organisation = { id: read.id, name: read.name, settings: parsed.data }
  return Effect.succeed(
    read.test_mode ? { ...organisation, test_clock: { frozen_at: read.clock_frozen_at } } : organisation
  )
}

export const apiKeyTable = table("api_keys", {
  id: uuid<Access.KeyId>(),
  organisation_id: uuid<Organisation.OrganisationId>(),
  name: nullable(text()),
  hash: text(),
  // The column is plain text[]: a scope the core no longer knows must not grant anything.
  scopes: literals(Access.Scope),
  expires_at: nullable(timestamp()),
  allowed_ips: texts(),
  revoked_at: nullable(timestamp()),
  created_at: timestamp(),
  owner_id: nullable(uuid<Organisation.UserId>()),
  created_by: nullable(uuid<People.AccountId>()),
  last_used_at: nullable(timestamp()),
  grant_id: nullable(text()),
  client_id: nullable(text())
})
export type ApiKeyRow = RowOfTable<typeof apiKeyTable>
export const toApiKey = (row: ApiKeyRow): Access.ApiKeyRecord => apiKeyTable.read(row)

export const idempotencyTable = table("idempotency", {
  fingerprint: text(),
  payload: text(),
  created_at: timestamp()
})
export type IdempotencyRow = RowOfTable<typeof idempotencyTable>
export const toIdempotencyRecord = (row: IdempotencyRow): Idempotency.IdempotencyRecord => idempotencyTable.read(row)

/** `data` read as text: the payload exactly as appended, for `Events.envelopeOfText`. */
export const eventTable = table("events", {
  id: () => ({ cast: "::bigint", readAs: undefined, read: decimal, write: decimal }),
  event: literal(Events.EventEnvelope.shape.event),
  data: () => ({ cast: "::json", readAs: "data::text", read: (data: string) => data, write: (data: string) => data }),
  created_at: timestamp()
})
export type EventRow = RowOfTable<typeof eventTable>

const eventName = literalOf("event", Events.EventEnvelope.shape.event)

/** Column by column, without the record `eventTable.read` would make: a page of events is up to 500 rows. */
export const toEvent = (row: EventRow): Events.EventEnvelope =>
  Events.envelopeOfText(decimal(row.id), eventName(row.event), row.data, iso(row.created_at))

export const contactTable = table("contacts", {
  id: uuid<Contacts.ContactId>(),
  first_name: nullable(text()),
  last_name: nullable(text()),
  email: nullable(text()),
  phone: nullable(text()),
  company_id: nullable(uuid<Companies.CompanyId>()),
  status: literal(Contacts.Contact.shape.status),
  source: nullable(text()),
  custom: custom(),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type ContactRow = RowOfTable<typeof contactTable>
export const toContact = (row: ContactRow): Contacts.Contact => contactTable.read(row)

export const companyTable = table("companies", {
  id: uuid<Companies.CompanyId>(),
  name: text(),
  domain: nullable(text()),
  email: nullable(text()),
  vat_number: nullable(text()),
  city: nullable(text()),
  country: nullable(text()),
  custom: custom(),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type CompanyRow = RowOfTable<typeof companyTable>
export const toCompany = (row: CompanyRow): Companies.Company => companyTable.read(row)

export const dealTable = table("deals", {
  id: uuid<Deals.DealId>(),
  title: text(),
  value: nullable(money()),
  currency: text(),
  pipeline_id: uuid<Deals.PipelineId>(),
  status_id: uuid<Deals.StageId>(),
  status_kind: literal(Deals.Deal.shape.status_kind),
  contact_id: nullable(uuid<Contacts.ContactId>()),
  company_id: nullable(uuid<Companies.CompanyId>()),
  owner_id: nullable(uuid<Organisation.UserId>()),
  expected_close_date: nullable(date()),
  lost_reason: nullable(text()),
  closed_at: nullable(timestamp()),
  custom: custom(),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type DealRow = RowOfTable<typeof dealTable>
export const toDeal = (row: DealRow): Deals.Deal => dealTable.read(row)

export const stageVisitTable = table("deal_stage_visits", {
  deal_id: uuid<Deals.DealId>(),
  pipeline_id: uuid<Deals.PipelineId>(),
  from_status_id: nullable(uuid<Deals.StageId>()),
  status_id: uuid<Deals.StageId>(),
  status_kind: literal(Deals.StageVisit.shape.status_kind),
  entered_at: timestamp(),
  left_at: nullable(timestamp()),
  key_id: nullable(uuid<Access.KeyId>())
})
export type StageVisitRow = RowOfTable<typeof stageVisitTable>
export const toStageVisit = (row: StageVisitRow): Deals.StageVisit => stageVisitTable.read(row)

export const taskTable = table("tasks", {
  id: uuid<Tasks.TaskId>(),
  title: text(),
  type: text(),
  priority: literal(Tasks.Task.shape.priority),
  due_at: nullable(timestamp()),
  done: boolean(),
  completed_at: nullable(timestamp()),
  assignee_id: nullable(uuid<Organisation.UserId>()),
  entity_type: nullable(literal(Tasks.Task.shape.entity_type.unwrap())),
  entity_id: nullable(uuid()),
  description: nullable(text()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type TaskRow = RowOfTable<typeof taskTable>
export const toTask = (row: TaskRow): Tasks.Task => taskTable.read(row)

/** The columns every priced document (quote, invoice, order) carries beside its own lines (`items`). */
const documentAmounts = {
  subtotal: money(),
  vat_total: money(),
  total: money(),
  vat_summary: json(Pricing.DocumentAmounts.vat_summary)
}

export const quoteTable = table("quotes", {
  id: uuid<Quotes.QuoteId>(),
  number: text(),
  status: literal(Quotes.Quote.shape.status),
  revision: integer(),
  currency: text(),
  contact_id: nullable(uuid<Contacts.ContactId>()),
  company_id: nullable(uuid<Companies.CompanyId>()),
  items: json(Quotes.Quote.shape.items),
  ...documentAmounts,
  valid_until: nullable(date()),
  vat_reason: nullable(text()),
  note: nullable(text()),
  invoice_id: nullable(uuid<Invoicing.InvoiceId>()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type QuoteRow = RowOfTable<typeof quoteTable>
export const toQuote = (row: QuoteRow): Quotes.Quote => quoteTable.read(row)

export const quoteRevisionTable = table("quote_revisions", {
  quote_id: uuid<Quotes.QuoteId>(),
  revision: integer(),
  sent_at: timestamp(),
  quote: json(Quotes.QuoteRevision.shape.quote)
})
export type QuoteRevisionRow = RowOfTable<typeof quoteRevisionTable>
export const toQuoteRevision = (row: QuoteRevisionRow): Quotes.QuoteRevision => quoteRevisionTable.read(row)

export const invoiceTable = table("invoices", {
  id: uuid<Invoicing.InvoiceId>(),
  /** NULL on a draft. */
  number: nullable(text()),
  kind: literal(Invoicing.Invoice.shape.kind),
  status: literal(Invoicing.Invoice.shape.status),
  issue_date: date(),
  due_date: date(),
  fulfilment_date: date(),
  currency: text(),
  exchange_rate: nullable(exact()),
  contact_id: nullable(uuid<Contacts.ContactId>()),
  company_id: nullable(uuid<Companies.CompanyId>()),
  buyer: json(Invoicing.Invoice.shape.buyer),
  items: json(Invoicing.Invoice.shape.items),
  ...documentAmounts,
  paid_amount: money(),
  vat_reason: nullable(text()),
  note: nullable(text()),
  quote_id: nullable(uuid<Quotes.QuoteId>()),
  original_invoice_id: nullable(uuid<Invoicing.InvoiceId>()),
  storno_invoice_id: nullable(uuid<Invoicing.InvoiceId>()),
  issued_at: nullable(timestamp()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type InvoiceRow = RowOfTable<typeof invoiceTable>

export const toInvoice = (row: InvoiceRow): Invoicing.Invoice => {
  const { id, number, ...invoice } = invoiceTable.read(row)
  // A draft has no number at all: the key is left out rather than set to undefined or null.
  return number === null ? { id, ...invoice } : { id, number, ...invoice }
}

/** What an invoice's row is written from: a draft's missing number is NULL. */
export const invoiceColumns = (invoice: Invoicing.Invoice) => ({ ...invoice, number: invoice.number ?? null })

export const paymentTable = table("payments", {
  id: uuid<Invoicing.PaymentId>(),
  invoice_id: uuid<Invoicing.InvoiceId>(),
  amount: money(),
  currency: text(),
  paid_on: date(),
  method: nullable(text()),
  reference: nullable(text()),
  created_at: timestamp()
})
export type PaymentRow = RowOfTable<typeof paymentTable>
export const toPayment = (row: PaymentRow): Invoicing.Payment => paymentTable.read(row)

/** `date` and `rate` read as text: the day as published, the rate exactly as stored. */
export const exchangeRateTable = table("exchange_rates", {
  date: date(),
  from_currency: text(),
  to_currency: text(),
  rate: () => ({ cast: "::numeric", readAs: "rate::text", read: (rate: string) => rate, write: (rate: string) => rate })
})
export type ExchangeRateRow = RowOfTable<typeof exchangeRateTable>

export const toPublishedRate = (row: ExchangeRateRow): Invoicing.PublishedRate => {
  const read = exchangeRateTable.read(row)
  return { date: read.date, from: read.from_currency, to: read.to_currency, rate: read.rate }
}

export const orderTable = table("orders", {
  id: uuid<Orders.OrderId>(),
  order_number: text(),
  external_id: text(),
  fulfilment: literal(Orders.Order.shape.fulfilment),
  payment_status: literal(Orders.Order.shape.payment_status),
  payment_method: nullable(literal(Orders.Order.shape.payment_method.unwrap())),
  currency: text(),
  items: json(Orders.Order.shape.items),
  ...documentAmounts,
  tracking_url: nullable(text()),
  contact_id: uuid<Contacts.ContactId>(),
  deal_id: nullable(uuid<Deals.DealId>()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type OrderRow = RowOfTable<typeof orderTable>
export const toOrder = (row: OrderRow): Orders.Order => orderTable.read(row)

/** The outbox's rows carry their organisation (a claim spans organisations); the message calls its recipient `to`. */
export const mailTable = table("mail_outbox", {
  id: uuid<Mail.MailMessageId>(),
  organisation_id: uuid<Organisation.OrganisationId>(),
  recipient: text(),
  subject: text(),
  body: text(),
  withheld: boolean(),
  status: literal(Mail.MailMessage.shape.status),
  attempts: integer(),
  last_error: nullable(text()),
  next_attempt_at: nullable(timestamp()),
  created_at: timestamp(),
  sent_at: nullable(timestamp())
})
export type MailRow = RowOfTable<typeof mailTable>

export const toMailMessage = (row: MailRow): Mail.MailMessage => {
  const { id, organisation_id: _organisation, recipient, ...message } = mailTable.read(row)
  return { id, to: recipient, ...message }
}

/** The columns of a message in the outbox of `organisationId`. */
export const mailColumns = (organisationId: Organisation.OrganisationId, message: Mail.MailMessage) => {
  const { to, ...columns } = message
  return { ...columns, organisation_id: organisationId, recipient: to }
}
