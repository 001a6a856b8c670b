/** Document lines as quotes and invoices carry them: what a client sends, and the priced line it gets back. */
import { z } from "zod"
import { ProductId, VariantId } from "../Inventory/ProductIds.js"
import { Amount, amount } from "../Money/Amount.js"

export const LineInput = z.strictObject({
  product_id: ProductId.nullable().optional().describe("a product of the organisation the line sells"),
  variant_id: VariantId.nullable().optional().describe("one of that product's variants; needs product_id"),
  name: z.string().min(1).max(500),
  quantity: z
    .number()
    .refine((n) => n !== 0, "must not be zero")
    .refine((n) => Math.abs(n) <= 1e9, "too large"),
  unit: z.string().max(20).nullable().optional(),
  unit_price: amount(z.number().min(-1e12).max(1e12)).describe("net price of one unit"),
  vat_rate: z.number().min(0).max(100).describe("percent added on top of the net price"),
  discount_percent: z.number().min(0).max(100).nullable().optional()
})
export type LineInput = z.output<typeof LineInput>

export const Line = z.object({
  product_id: ProductId.nullable(),
  variant_id: VariantId.nullable(),
  name: z.string(),
  quantity: z.number(),
  unit: z.string().nullable(),
  unit_price: Amount,
  vat_rate: z.number(),
  discount_percent: z.number().nullable(),
  net: Amount.describe("quantity × unit price less the discount, rounded to the currency's minor unit"),
  vat: Amount.describe("net × rate, rounded"),
  gross: Amount.describe("net + vat")
})
export type Line = z.infer<typeof Line>

export const VatSummaryRow = z.object({ vat_rate: z.number(), net: Amount, vat: Amount, gross: Amount })
export type VatSummaryRow = z.infer<typeof VatSummaryRow>

/** The amounts every priced document carries, beside its lines. */
export const DocumentAmounts = {
  subtotal: Amount.describe("Σ line net"),
  vat_total: Amount.describe("Σ line VAT"),
  total: Amount.describe("Σ line gross, in the document's currency"),
  vat_summary: z.array(VatSummaryRow).describe("per VAT rate, highest first")
}

/** A zero-rate line needs a reason on the document (exemption, reverse charge, ...). */
export const lacksVatReason = (
  lines: ReadonlyArray<{ readonly vat_rate: number }>,
  vatReason: string | null | undefined
) => lines.some((line) => line.vat_rate === 0) && (vatReason == null || vatReason.trim() === "")
