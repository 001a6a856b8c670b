/** Invoices in memory: rows per organisation, and each invoice's payments beside them. */
import { Invoicing } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as LiveRecords from "./internal/liveRecords.js"
import {
  copy,
  copyOut,
  earliestFirst,
  instant,
  read,
  type Store,
  slot,
  type Tenant,
  tenant,
  withTenant,
  write
} from "./internal/Store.js"

export const invoices = LiveRecords.table<Invoicing.Invoice>("invoices")
/** Each invoice's payments, in the order they were recorded. */
const payments = slot("invoices.payments", HashMap.empty<string, ReadonlyArray<Invoicing.Payment>>())

const paymentsOf = (t: Tenant, invoiceId: string): ReadonlyArray<Invoicing.Payment> =>
  Option.getOrElse(HashMap.get(payments.get(t), invoiceId), () => [])

/** What the overdue job looks at: invoices still waiting for money. */
const awaitingPayment = (status: Invoicing.Invoice["status"]): boolean => status === "issued" || status === "partial"

export const make = (store: Store): Context.Tag.Service<typeof Invoicing.InvoiceRepository> => {
  const live = LiveRecords.make<Invoicing.Invoice>(store, {
    table: invoices,
    noun: "invoice"
  })
  return Invoicing.InvoiceRepository.of({
    insert: live.insert,
    organisationOf: live.organisationOf,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (invoice) =>
          (filter.status === undefined || invoice.status === filter.status) &&
          (filter.kind === undefined || invoice.kind === filter.kind) &&
          (filter.contactId === undefined || invoice.contact_id === filter.contactId) &&
          (filter.companyId === undefined || invoice.company_id === filter.companyId)
      ),
    addPayment: (organisationId, input) =>
      Effect.flatMap(copy(input), (payment) =>
        write(store, (state) => {
          const t = tenant(state, organisationId)
          const next = payments.update(t, (recorded) =>
            HashMap.set(recorded, payment.invoice_id, [...paymentsOf(t, payment.invoice_id), payment])
          )
          return [Either.right<void>(undefined), withTenant(state, organisationId, next)]
        })
      ),
    payments: (organisationId, invoiceId) =>
      read(store, (state) =>
        // A stable sort: payments made at the same instant stay in the order they were recorded.
        [...paymentsOf(tenant(state, organisationId), invoiceId)]
          .sort((x, y) => instant(x.created_at) - instant(y.created_at))
          .map(copyOut)
      ),
    dueBefore: (organisationId, today) =>
      live.select(
        organisationId,
        // YYYY-MM-DD compares as text in calendar order.
        (invoice) => awaitingPayment(invoice.status) && invoice.due_date < today,
        earliestFirst((invoice) => invoice.due_date)
      ),
    unpaid: (organisationId, filter) =>
      live.select(
        organisationId,
        (invoice) =>
          (invoice.status === "issued" || invoice.status === "partial" || invoice.status === "overdue") &&
          invoice.kind !== "proforma" &&
          invoice.kind !== "storno" &&
          (filter.contactId === undefined || invoice.contact_id === filter.contactId) &&
          (filter.companyId === undefined || invoice.company_id === filter.companyId),
        earliestFirst((invoice) => invoice.due_date)
      )
  })
}
