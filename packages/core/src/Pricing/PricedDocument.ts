/** Turns the lines a client sends into the priced lines and totals a quote or invoice stores. */
import type { Amount } from "../Money/Amount.js"
import { priceDocument } from "./LinePrice.js"
import type { Line, LineInput, VatSummaryRow } from "./LineSchemas.js"

export interface Priced {
  readonly items: Array<Line>
  readonly subtotal: Amount
  readonly vat_total: Amount
  readonly total: Amount
  readonly vat_summary: Array<VatSummaryRow>
}

export const price = (items: ReadonlyArray<LineInput>, currency: string): Priced => {
  const document = priceDocument(
    items.map(
      (item): Omit<Line, "net" | "vat" | "gross"> => ({
        product_id: item.product_id ?? null,
        variant_id: item.variant_id ?? null,
        name: item.name,
        quantity: item.quantity,
        unit: item.unit ?? null,
        unit_price: item.unit_price,
        vat_rate: item.vat_rate,
        discount_percent: item.discount_percent ?? null
      })
    ),
    currency
  )
  return {
    items: [...document.lines],
    subtotal: document.subtotal,
    vat_total: document.vat_total,
    total: document.total,
    vat_summary: document.vat_summary.map((row) => ({ ...row }))
  }
}

/** A stored line as the input that prices it again (a quote turned invoice, a storno, a currency change). */
export const inputOf = ({ net: _net, vat: _vat, gross: _gross, ...input }: Line): LineInput => input
