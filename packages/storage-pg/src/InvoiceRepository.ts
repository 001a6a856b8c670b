import { Invoicing } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { type InvoiceRow, type PaymentRow, toInvoice, toPayment } from "./internal/rows.js"
import { json } from "./internal/values.js"

const invoices: LiveRecords.LiveTable<InvoiceRow, Invoicing.Invoice> = {
  table: "invoices",
  columns: `id, number, kind, status, issue_date, due_date, fulfilment_date, currency, exchange_rate, contact_id,
    company_id, buyer, items, subtotal, vat_total, total, vat_summary, paid_amount, vat_reason, note, quote_id,
    original_invoice_id, storno_invoice_id, issued_at, created_at, updated_at`,
  readAs: {
    issue_date: "issue_date::text",
    due_date: "due_date::text",
    fulfilment_date: "fulfilment_date::text"
  },
  toRecord: toInvoice,
  repository: "InvoiceRepository"
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof Invoicing.InvoiceRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, invoices)

  return Invoicing.InvoiceRepository.of({
    insert: (organisationId, invoice) =>
      live.insert(
        organisationId,
        sql`${invoice.id}::uuid, ${invoice.number ?? null}, ${invoice.kind}, ${invoice.status},
          ${invoice.issue_date}::date, ${invoice.due_date}::date, ${invoice.fulfilment_date}::date, ${invoice.currency},
          ${invoice.exchange_rate}::numeric, ${invoice.contact_id}::uuid, ${invoice.company_id}::uuid,
          ${json(invoice.buyer)}::jsonb, ${json(invoice.items)}::jsonb, ${invoice.subtotal}::numeric,
          ${invoice.vat_total}::numeric, ${invoice.total}::numeric, ${json(invoice.vat_summary)}::jsonb,
          ${invoice.paid_amount}::numeric, ${invoice.vat_reason}, ${invoice.note}, ${invoice.quote_id}::uuid,
          ${invoice.original_invoice_id}::uuid, ${invoice.storno_invoice_id}::uuid, ${invoice.issued_at}::timestamptz,
          ${invoice.created_at}::timestamptz, ${invoice.updated_at}::timestamptz`
      ),
    organisationOf: live.organisationOf,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, invoice) =>
      live.update(
        organisationId,
        invoice.id,
        sql`number = ${invoice.number ?? null}, kind = ${invoice.kind}, status = ${invoice.status},
          issue_date = ${invoice.issue_date}::date, due_date = ${invoice.due_date}::date,
          fulfilment_date = ${invoice.fulfilment_date}::date, currency = ${invoice.currency},
          exchange_rate = ${invoice.exchange_rate}::numeric, contact_id = ${invoice.contact_id}::uuid,
          company_id = ${invoice.company_id}::uuid, buyer = ${json(invoice.buyer)}::jsonb,
          items = ${json(invoice.items)}::jsonb, subtotal = ${invoice.subtotal}::numeric,
          vat_total = ${invoice.vat_total}::numeric, total = ${invoice.total}::numeric,
          vat_summary = ${json(invoice.vat_summary)}::jsonb, paid_amount = ${invoice.paid_amount}::numeric,
          vat_reason = ${invoice.vat_reason}, note = ${invoice.note}, quote_id = ${invoice.quote_id}::uuid,
          original_invoice_id = ${invoice.original_invoice_id}::uuid,
          storno_invoice_id = ${invoice.storno_invoice_id}::uuid, issued_at = ${invoice.issued_at}::timestamptz,
          updated_at = ${invoice.updated_at}::timestamptz`
      ),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
        ...(filter.kind !== undefined ? [sql`kind = ${filter.kind}`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.companyId !== undefined ? [sql`company_id = ${filter.companyId}::uuid`] : [])
      ]),
    addPayment: (organisationId, payment) =>
      sql`INSERT INTO payments (id, organisation_id, invoice_id, amount, currency, paid_on, method, reference, created_at)
        VALUES (${payment.id}::uuid, ${organisationId}::uuid, ${payment.invoice_id}::uuid, ${payment.amount}::numeric,
          ${payment.currency}, ${payment.paid_on}::date, ${payment.method}, ${payment.reference},
          ${payment.created_at}::timestamptz)`.pipe(Effect.asVoid, orStorageError("InvoiceRepository.addPayment")),
    payments: (organisationId, invoiceId) =>
      sql<PaymentRow>`SELECT id, invoice_id, amount, currency, paid_on::text AS paid_on, method, reference, created_at
        FROM payments WHERE organisation_id = ${organisationId}::uuid AND invoice_id = ${invoiceId}::uuid
        ORDER BY created_at, recorded`.pipe(
        Effect.map((rows) => rows.map(toPayment)),
        orStorageError("InvoiceRepository.payments")
      ),
    dueBefore: (organisationId, today) =>
      sql<InvoiceRow>`SELECT ${live.selected} FROM invoices
        WHERE ${live.whereLive(organisationId)} AND status IN ('issued', 'partial') AND due_date < ${today}::date
        ORDER BY due_date, id`.pipe(
        Effect.map((rows) => rows.map(toInvoice)),
        orStorageError("InvoiceRepository.dueBefore")
      ),
    unpaid: (organisationId, filter) =>
      sql<InvoiceRow>`SELECT ${live.selected} FROM invoices
        WHERE ${sql.and([
          live.whereLive(organisationId),
          sql`status IN ('issued', 'partial', 'overdue')`,
          sql`kind NOT IN ('proforma', 'storno')`,
          ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
          ...(filter.companyId !== undefined ? [sql`company_id = ${filter.companyId}::uuid`] : [])
        ])}`.pipe(
        Effect.map((rows) => rows.map(toInvoice)),
        orStorageError("InvoiceRepository.unpaid")
      )
  })
})

export const layer = Layer.effect(Invoicing.InvoiceRepository, make)
