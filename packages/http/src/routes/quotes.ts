import { Invoicing, Quotes } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import * as DocumentRenderer from "../DocumentRenderer.js"
import { created, ok } from "../Reply.js"
import { invoicesWrite, quotesWrite, read, route } from "../Route.js"
import { createRoute, getRoute, listRoute, patchRoute } from "./resource.js"

const spec = {
  service: Quotes.Quotes,
  plural: "quotes",
  singular: "quote",
  pascal: "Quote",
  schemas: {
    id: Quotes.QuoteId,
    create: Quotes.QuoteCreate,
    patch: Quotes.QuotePatch,
    record: Quotes.Quote,
    page: Quotes.QuotePage,
    query: Quotes.QuoteListQuery
  },
  createErrors: ["validation_failed"],
  updateErrors: ["not_draft"],
  writeGuard: quotesWrite,
  notes: {
    create:
      "Create a draft quote, numbered from the quote series; lines are priced per line (rounded to the currency's minor unit, half away from zero) and summed; a zero-rate line needs vat_reason",
    update: "Change a draft quote: omitted fields keep their value, items replaces every line; 409 not_draft otherwise"
  }
} as const

export const quoteRoutes = [
  listRoute(spec),
  createRoute(spec),
  getRoute(spec),
  patchRoute(spec),
  route({
    method: "GET",
    path: "/quotes/{id}/pdf",
    params: { id: Quotes.QuoteId },
    operationId: "getQuotePdf",
    tag: "quotes",
    guard: read(),
    summary:
      "The quote as a PDF to send: seller (settings.seller) and the buyer (its company, else its contact, as they are now), number, dates, lines, the VAT summary per rate, totals and the VAT exemption reason; 501 not_implemented where the server was built without a PDF renderer",
    success: { status: 200, description: "the PDF", file: "application/pdf" },
    errors: ["not_found", "not_implemented"],
    handle: ({ principal, params }) => {
      const organisation = principal.organisation
      return Effect.flatMap(Quotes.Quotes, (quotes) => quotes.addressed(organisation, params.id)).pipe(
        Effect.flatMap(({ quote, buyer }) =>
          DocumentRenderer.reply(organisation.settings, { kind: "quote", quote, buyer }, quote.id)
        )
      )
    }
  }),
  route({
    method: "GET",
    path: "/quotes/{id}/revisions",
    params: { id: Quotes.QuoteId },
    operationId: "listQuoteRevisions",
    tag: "quotes",
    guard: read(),
    summary: "The revisions each send froze, oldest first: the quote exactly as it was sent",
    success: { status: 200, schema: Quotes.QuoteRevisions, description: "the revisions" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(Quotes.Quotes, (quotes) => quotes.revisions(principal.organisation, params.id)).pipe(
        Effect.map((data) => ok({ data }))
      )
  }),
  route({
    method: "POST",
    path: "/quotes/{id}/invoice",
    params: { id: Quotes.QuoteId },
    operationId: "invoiceQuote",
    tag: "quotes",
    guard: invoicesWrite,
    summary: "Turn an accepted quote into an invoice draft with the same lines and buyer (once)",
    success: { status: 201, schema: Invoicing.Invoice, description: "the invoice draft" },
    errors: ["not_found", "transition_not_allowed", "already_invoiced", "validation_failed"],
    handle: ({ principal, params }) =>
      Effect.flatMap(Quotes.Quotes, (quotes) => quotes.invoice(principal.organisation, params.id)).pipe(
        Effect.map(created)
      )
  })
]

export const quotesArea: Area = {
  api: quoteRoutes,
  schemaNames: named(Quotes, "Quote", "QuoteCreate", "QuotePatch", "QuotePage", "QuoteRevision", "QuoteRevisions")
}
