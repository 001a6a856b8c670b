import { z } from "zod"
import { CompanyId } from "../Companies/CompanyIds.js"
import { ContactId } from "../Contacts/ContactIds.js"
import { DateOnly } from "../Deals/DealSchemas.js"
import { Amount, amount } from "../Money/Amount.js"
import { Currency } from "../Money/Currency.js"
import { DocumentAmounts, Line, LineInput } from "../Pricing/LineSchemas.js"
import { QuoteId } from "../Quotes/QuoteIds.js"
import { PageQuery, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { InvoiceId, PaymentId } from "./InvoiceIds.js"

export * from "./InvoiceIds.js"

export const InvoiceKind = z.enum(["normal", "storno", "corrective", "proforma", "advance"])
export type InvoiceKind = z.infer<typeof InvoiceKind>
export const InvoiceStatus = z.enum(["draft", "issued", "partial", "paid", "overdue", "cancelled"])
export type InvoiceStatus = z.infer<typeof InvoiceStatus>

const ExchangeRate = z
  .number()
  .positive()
  .max(1e9)
  .describe("units of the organisation's currency per 1 unit of the invoice's")

const fields = {
  contact_id: ContactId.nullable().optional(),
  company_id: CompanyId.nullable().optional(),
  currency: Currency.optional().describe("ISO 4217; defaults to the organisation's default currency"),
  items: z.array(LineInput).min(1).max(500).describe("the lines; on PATCH replaces every line"),
  issue_date: DateOnly.optional().describe("defaults to today in the organisation's time zone"),
  due_date: DateOnly.optional().describe("defaults to the issue date plus the organisation's payment terms"),
  fulfilment_date: DateOnly.optional().describe("the taxable supply date; defaults to the issue date"),
  exchange_rate: ExchangeRate.nullable().optional(),
  vat_reason: z.string().max(500).nullable().optional().describe("required at issue when a line has a zero VAT rate"),
  note: z.string().max(10_000).nullable().optional()
}

export const InvoiceCreate = z.strictObject({
  kind: z
    .enum(["normal", "corrective", "proforma", "advance"], {
      error: "must be normal, corrective, proforma or advance (a storno is made by reversing an issued invoice)"
    })
    .optional()
    .describe("default normal"),
  ...fields
})
export const InvoicePatch = z.strictObject({ ...fields, items: fields.items.optional() })
export const InvoiceIssue = z.strictObject({ exchange_rate: ExchangeRate.optional() })

/** The addressee as it was when the invoice was made: later edits of the contact or company leave it alone. */
export const Buyer = z.object({
  name: z.string().nullable(),
  email: z.string().nullable(),
  vat_number: z.string().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable()
})
export type Buyer = z.infer<typeof Buyer>

export const Invoice = z.object({
  id: InvoiceId,
  number: z.string().optional().describe("absent on a draft; allocated at issue"),
  kind: InvoiceKind,
  status: InvoiceStatus,
  issue_date: z.string(),
  due_date: z.string(),
  fulfilment_date: z.string(),
  currency: z.string(),
  exchange_rate: z.number().nullable().describe("set at issue for a foreign-currency invoice"),
  contact_id: ContactId.nullable(),
  company_id: CompanyId.nullable(),
  buyer: Buyer,
  items: z.array(Line),
  ...DocumentAmounts,
  paid_amount: Amount,
  vat_reason: z.string().nullable(),
  note: z.string().nullable(),
  quote_id: QuoteId.nullable().describe("the accepted quote this invoice was made from"),
  original_invoice_id: InvoiceId.nullable().describe("on a storno: the invoice it reverses"),
  storno_invoice_id: InvoiceId.nullable().describe("on a reversed invoice: its storno"),
  issued_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Invoice = z.infer<typeof Invoice>
export const InvoicePage = syncPageEnvelope(Invoice, { archivable: false })

export const InvoiceListQuery = z.object({
  status: InvoiceStatus.optional(),
  kind: InvoiceKind.optional(),
  contact_id: ContactId.optional(),
  company_id: CompanyId.optional(),
  ...SyncQuery,
  ...PageQuery
})
export type InvoiceListQuery = z.output<typeof InvoiceListQuery>

export const PaymentCreate = z.strictObject({
  amount: amount(z.number().positive().max(1e12)).describe("in the invoice's currency"),
  paid_on: DateOnly.optional().describe("defaults to today in the organisation's time zone"),
  method: z.string().max(50).nullable().optional(),
  reference: z.string().max(200).nullable().optional()
})

export const Payment = z.object({
  id: PaymentId,
  invoice_id: InvoiceId,
  amount: Amount,
  currency: z.string(),
  paid_on: z.string(),
  method: z.string().nullable(),
  reference: z.string().nullable(),
  created_at: Timestamp
})
export type Payment = z.infer<typeof Payment>
export const PaymentList = z.object({ data: z.array(Payment) })

/** What the admin API takes to load central-bank rates. */
export const RatesImport = z.strictObject({
  format: z
    .enum(["cnb", "ecb"])
    .describe("cnb: the Czech National Bank's daily text; ecb: the ECB's euro reference CSV"),
  text: z.string().min(1).max(5_000_000)
})
