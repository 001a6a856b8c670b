import { Invoicing } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import {
  type InvoiceRow,
  invoiceColumns,
  invoiceTable,
  type PaymentRow,
  paymentTable,
  toInvoice,
  toPayment
} from "./internal/rows.js"

const invoices = LiveRecords.liveTable({ table: invoiceTable, toRecord: toInvoice, repository: "InvoiceRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Invoicing.InvoiceRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, invoices)

  return Invoicing.InvoiceRepository.of({
    insert: (organisationId, invoice) => live.insert(organisationId, invoiceColumns(invoice)),
    organisationOf: live.organisationOf,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, invoice) => live.update(organisationId, invoice.id, invoiceColumns(invoice)),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
        ...(filter.kind !== undefined ? [sql`kind = ${filter.kind}`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.companyId !== undefined ? [sql`company_id = ${filter.companyId}::uuid`] : [])
      ]),
    addPayment: (organisationId, payment) =>
      sql`INSERT INTO payments ${paymentTable.insert(sql, payment, { organisation_id: sql`${organisationId}::uuid` })}`.pipe(
        Effect.asVoid,
        orStorageError("InvoiceRepository.addPayment")
      ),
    payments: (organisationId, invoiceId) =>
      sql<PaymentRow>`SELECT ${sql.literal(paymentTable.selected)}
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
