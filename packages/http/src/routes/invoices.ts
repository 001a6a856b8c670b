import { Invoicing } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import * as DocumentRenderer from "../DocumentRenderer.js"
import { created, ok } from "../Reply.js"
import { invoicesWrite, read, route } from "../Route.js"
import { createRoute, getRoute, listRoute, patchRoute } from "./resource.js"

const spec = {
  service: Invoicing.Invoicing,
  plural: "invoices",
  singular: "invoice",
  pascal: "Invoice",
  schemas: {
    id: Invoicing.InvoiceId,
    create: Invoicing.InvoiceCreate,
    patch: Invoicing.InvoicePatch,
    record: Invoicing.Invoice,
    page: Invoicing.InvoicePage,
    query: Invoicing.InvoiceListQuery
  },
  createErrors: ["validation_failed"],
  updateErrors: ["not_draft"],
  writeGuard: invoicesWrite,
  notes: {
    create:
      "Create an unnumbered draft: dates default to today in the organisation's time zone, the due date from its payment terms; the buyer is frozen and its VAT exemption applied",
    update:
      "Change a draft invoice: omitted fields keep their value, items replaces every line; 409 not_draft otherwise"
  }
} as const

export const invoiceRoutes = [
  listRoute(spec),
  createRoute(spec),
  getRoute(spec),
  patchRoute(spec),
  route({
    method: "GET",
    path: "/invoices/{id}/pdf",
    params: { id: Invoicing.InvoiceId },
    operationId: "getInvoicePdf",
    tag: "invoices",
    guard: read(),
    summary:
      "The invoice as a PDF to send: seller (settings.seller) and frozen buyer, number (DRAFT before issue), dates, lines, the VAT summary per rate, totals, the VAT exemption reason and the exchange rate; 501 not_implemented where the server was built without a PDF renderer",
    success: { status: 200, description: "the PDF", file: "application/pdf" },
    errors: ["not_found", "not_implemented"],
    handle: ({ principal, params }) => {
      const organisation = principal.organisation
      return Effect.flatMap(Invoicing.Invoicing, (invoicing) => invoicing.get(organisation, params.id)).pipe(
        Effect.flatMap((invoice) =>
          DocumentRenderer.reply(organisation.settings, { kind: "invoice", invoice }, invoice.id)
        )
      )
    }
  }),
  route({
    method: "POST",
    path: "/invoices/{id}/issue",
    params: { id: Invoicing.InvoiceId },
    operationId: "issueInvoice",
    tag: "invoices",
    guard: invoicesWrite,
    summary:
      "Issue a draft: allocates the next number of its kind's series for the issue year (gap-free), fixes the exchange rate, emits invoice.issued",
    body: Invoicing.InvoiceIssue,
    optionalBody: true,
    success: { status: 200, schema: Invoicing.Invoice, description: "the issued invoice" },
    errors: ["not_found", "not_draft", "not_issuable"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Invoicing.Invoicing, (invoicing) => invoicing.issue(principal.organisation, params.id, body)).pipe(
        Effect.map(ok)
      )
  }),
  route({
    method: "POST",
    path: "/invoices/{id}/payments",
    params: { id: Invoicing.InvoiceId },
    operationId: "payInvoice",
    tag: "invoices",
    guard: invoicesWrite,
    summary:
      "Record a payment (send an Idempotency-Key: a retried payment is otherwise counted twice); the status follows the sum; invoice.paid when fully paid",
    body: Invoicing.PaymentCreate,
    success: { status: 201, schema: Invoicing.Payment, description: "the payment" },
    errors: ["not_found", "not_payable", "validation_failed"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Invoicing.Invoicing, (invoicing) => invoicing.pay(principal.organisation, params.id, body)).pipe(
        Effect.map(created)
      )
  }),
  route({
    method: "GET",
    path: "/invoices/{id}/payments",
    params: { id: Invoicing.InvoiceId },
    operationId: "listInvoicePayments",
    tag: "invoices",
    guard: read(),
    summary: "The invoice's payments, oldest first",
    success: { status: 200, schema: Invoicing.PaymentList, description: "the payments" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(Invoicing.Invoicing, (invoicing) => invoicing.payments(principal.organisation, params.id)).pipe(
        Effect.map((data) => ok({ data }))
      )
  })
]

export const invoicesArea: Area = {
  api: invoiceRoutes,
  schemaNames: named(
    Invoicing,
    "Invoice",
    "InvoiceCreate",
    "InvoicePatch",
    "InvoicePage",
    "InvoiceIssue",
    "InvoiceKind",
    "Buyer",
    "Payment",
    "PaymentCreate",
    "PaymentList",
    "RatesImport"
  )
}
