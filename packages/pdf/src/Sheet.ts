/**
 * What a quote's or an invoice's page shows: the figures are those the API answers (the lines,
 * totals and VAT summary the core's pricing stored on the document), put in order here as final
 * text and plain data (which a worker thread receives as it is), and nowhere computed again.
 */
import type { Invoicing, Quotes, Settings } from "@crm/core"
import type { DocumentRenderer } from "@crm/http"

type Buyer = Invoicing.Buyer
export type Line = Invoicing.Invoice["items"][number]
export type Amounts = Pick<Invoicing.Invoice, "subtotal" | "vat_total" | "total" | "vat_summary">

/** What a page shows, in the order it shows it: every text already final, and plain data. */
export interface Sheet {
  readonly title: string
  /** The document's number, else `DRAFT`. */
  readonly number: string
  readonly draft: boolean
  readonly seller: ReadonlyArray<string>
  readonly buyer: ReadonlyArray<string>
  readonly facts: ReadonlyArray<readonly [label: string, value: string]>
  readonly currency: string
  readonly items: ReadonlyArray<Line>
  readonly amounts: Amounts
  readonly notes: ReadonlyArray<readonly [label: string, text: string]>
  readonly footer: string
  readonly updatedAt: string
}

const INVOICE_TITLES: Record<Invoicing.InvoiceKind, string> = {
  normal: "Invoice",
  proforma: "Proforma invoice",
  advance: "Advance invoice",
  corrective: "Corrective invoice",
  storno: "Credit note"
}

const present = (lines: ReadonlyArray<string | null | undefined>): Array<string> =>
  lines.filter((line): line is string => line != null && line.trim() !== "")

const sellerOf = (settings: Settings.Settings): Array<string> => {
  const seller = settings.seller
  return present([
    seller.legal_name ?? settings.name,
    ...(seller.address ?? "").split("\n"),
    settings.country,
    seller.registration_number === null ? null : `Reg. no. ${seller.registration_number}`,
    seller.vat_number === null ? null : `VAT no. ${seller.vat_number}`,
    seller.email,
    seller.phone
  ])
}

const buyerOf = (buyer: Buyer): Array<string> => {
  const place = present([buyer.city, buyer.country]).join(", ")
  return present([
    buyer.name ?? "(no name)",
    place,
    buyer.vat_number === null ? null : `VAT no. ${buyer.vat_number}`,
    buyer.email
  ])
}

const footerOf = (settings: Settings.Settings): string =>
  present([
    settings.seller.legal_name ?? settings.name,
    settings.seller.registration_number === null ? null : `Reg. no. ${settings.seller.registration_number}`,
    settings.seller.vat_number === null ? null : `VAT no. ${settings.seller.vat_number}`
  ]).join("  ·  ")

/** A timestamp's calendar day where the organisation is, as the API's dates are written. */
const dayOf = (timestamp: string, timezone: string): string =>
  new Intl.DateTimeFormat("en-CA", { timeZone: timezone, year: "numeric", month: "2-digit", day: "2-digit" }).format(
    new Date(timestamp)
  )

export const invoiceSheet = (settings: Settings.Settings, invoice: Invoicing.Invoice): Sheet => {
  const foreign = invoice.exchange_rate !== null && invoice.currency !== settings.default_currency
  const payTo = settings.seller.bank_account
  return {
    title: INVOICE_TITLES[invoice.kind],
    number: invoice.number ?? "DRAFT",
    draft: invoice.number === undefined,
    seller: sellerOf(settings),
    buyer: buyerOf(invoice.buyer),
    facts: [
      ["Issue date", invoice.issue_date],
      ["Taxable supply", invoice.fulfilment_date],
      ["Due date", invoice.due_date],
      ["Currency", invoice.currency]
    ],
    currency: invoice.currency,
    items: invoice.items,
    amounts: invoice,
    notes: [
      ...(invoice.vat_reason === null ? [] : [["VAT exemption", invoice.vat_reason] as const]),
      ...(foreign
        ? [["Exchange rate", `1 ${invoice.currency} = ${invoice.exchange_rate} ${settings.default_currency}`] as const]
        : []),
      ...(payTo === null || invoice.kind === "storno"
        ? []
        : [
            [
              "Payment",
              present([
                `to ${payTo}`,
                settings.seller.bic === null ? null : `BIC ${settings.seller.bic}`,
                invoice.number === undefined ? null : `reference ${invoice.number}`,
                `by ${invoice.due_date}`
              ]).join(", ")
            ] as const
          ]),
      ...(invoice.note === null ? [] : [["Note", invoice.note] as const])
    ],
    footer: footerOf(settings),
    updatedAt: invoice.updated_at
  }
}

export const quoteSheet = (settings: Settings.Settings, quote: Quotes.Quote, buyer: Buyer): Sheet => ({
  title: "Quote",
  number: quote.number,
  draft: false,
  seller: sellerOf(settings),
  buyer: buyerOf(buyer),
  facts: [
    ["Date", dayOf(quote.created_at, settings.timezone)],
    ...(quote.valid_until === null ? [] : [["Valid until", quote.valid_until] as const]),
    ["Currency", quote.currency]
  ],
  currency: quote.currency,
  items: quote.items,
  amounts: quote,
  notes: [
    ...(quote.vat_reason === null ? [] : [["VAT exemption", quote.vat_reason] as const]),
    ...(quote.note === null ? [] : [["Note", quote.note] as const])
  ],
  footer: footerOf(settings),
  updatedAt: quote.updated_at
})

/** The sheet of a document the HTTP edge asks for. */
export const sheetOf = (settings: Settings.Settings, document: DocumentRenderer.Document): Sheet =>
  document.kind === "invoice"
    ? invoiceSheet(settings, document.invoice)
    : quoteSheet(settings, document.quote, document.buyer)
