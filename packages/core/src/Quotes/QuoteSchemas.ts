import { z } from "zod"
import { CompanyId } from "../Companies/CompanyIds.js"
import { ContactId } from "../Contacts/ContactIds.js"
import { DateOnly } from "../Deals/DealSchemas.js"
import { InvoiceId } from "../Invoicing/InvoiceIds.js"
import { Currency } from "../Money/Currency.js"
import { DocumentAmounts, Line, LineInput } from "../Pricing/LineSchemas.js"
import { PageQuery, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { QuoteId } from "./QuoteIds.js"

export * from "./QuoteIds.js"

export const QuoteStatus = z.enum(["draft", "sent", "accepted", "rejected", "expired", "cancelled"])
export type QuoteStatus = z.infer<typeof QuoteStatus>

const fields = {
  contact_id: ContactId.nullable().optional(),
  company_id: CompanyId.nullable().optional(),
  currency: Currency.optional().describe("ISO 4217; defaults to the organisation's default currency"),
  items: z.array(LineInput).min(1).max(500).describe("the lines; on PATCH replaces every line"),
  valid_until: DateOnly.nullable().optional(),
  vat_reason: z.string().max(500).nullable().optional().describe("required when a line has a zero VAT rate"),
  note: z.string().max(10_000).nullable().optional()
}

export const QuoteCreate = z.strictObject(fields)
export const QuotePatch = z.strictObject({ ...fields, items: fields.items.optional() })

export const Quote = z.object({
  id: QuoteId,
  number: z.string().describe("from the quote series, given at creation"),
  status: QuoteStatus,
  revision: z.number().int().describe("how many times the quote was sent; each send freezes a revision"),
  currency: z.string(),
  contact_id: ContactId.nullable(),
  company_id: CompanyId.nullable(),
  items: z.array(Line),
  ...DocumentAmounts,
  valid_until: z.string().nullable(),
  vat_reason: z.string().nullable(),
  note: z.string().nullable(),
  invoice_id: InvoiceId.nullable().describe("the invoice draft made from the accepted quote"),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Quote = z.infer<typeof Quote>
export const QuotePage = syncPageEnvelope(Quote, { archivable: false })

export const QuoteListQuery = z.object({
  status: QuoteStatus.optional(),
  contact_id: ContactId.optional(),
  company_id: CompanyId.optional(),
  ...SyncQuery,
  ...PageQuery
})
export type QuoteListQuery = z.output<typeof QuoteListQuery>

/** What a send froze: the quote exactly as the customer received it. */
export const QuoteRevision = z.object({
  quote_id: QuoteId,
  revision: z.number().int(),
  sent_at: Timestamp,
  quote: Quote
})
export type QuoteRevision = z.infer<typeof QuoteRevision>
export const QuoteRevisions = z.object({ data: z.array(QuoteRevision) })
