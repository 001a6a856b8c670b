/**
 * The one pricing function for quotes, invoices, previews and PDFs: each line is rounded on its own, then the
 * document sums the rounded lines, so the figures printed on a line always add up to the printed totals.
 */
import * as BigDecimal from "effect/BigDecimal"
import { type Amount, decimal, fromDecimal, toDecimal, toJson } from "../Money/Amount.js"
import { roundMinor } from "../Money/Currency.js"

export interface LineInput {
  readonly quantity: number
  readonly unit_price: Amount
  readonly vat_rate: number
  readonly discount_percent?: number | null | undefined
}

export interface LineAmounts {
  readonly net: Amount
  readonly vat: Amount
  readonly gross: Amount
}

export interface VatSummaryRow extends LineAmounts {
  readonly vat_rate: number
}

export interface DocumentAmounts {
  readonly subtotal: Amount
  readonly vat_total: Amount
  readonly total: Amount
  readonly vat_summary: ReadonlyArray<VatSummaryRow>
}

interface Exact {
  readonly net: BigDecimal.BigDecimal
  readonly vat: BigDecimal.BigDecimal
  readonly gross: BigDecimal.BigDecimal
}

const ZERO = BigDecimal.fromBigInt(0n)
const HUNDRED = BigDecimal.fromBigInt(100n)

// Dividing by 100 moves the decimal point; `BigDecimal.divide` would go through its precision-limited long
// division for no reason.
const percent = (d: BigDecimal.BigDecimal): BigDecimal.BigDecimal => BigDecimal.make(d.value, d.scale + 2)

const priceExact = (line: LineInput, currency: string): Exact => {
  const discount = line.discount_percent == null ? ZERO : decimal(line.discount_percent)
  const undiscounted = BigDecimal.multiply(decimal(line.quantity), toDecimal(line.unit_price))
  const net = roundMinor(percent(BigDecimal.multiply(undiscounted, BigDecimal.subtract(HUNDRED, discount))), currency)
  const vat = roundMinor(percent(BigDecimal.multiply(net, decimal(line.vat_rate))), currency)
  return { net, vat, gross: BigDecimal.sum(net, vat) }
}

const add = (a: Exact, b: Exact): Exact => ({
  net: BigDecimal.sum(a.net, b.net),
  vat: BigDecimal.sum(a.vat, b.vat),
  gross: BigDecimal.sum(a.gross, b.gross)
})

const toAmounts = (e: Exact): LineAmounts => ({
  net: fromDecimal(e.net),
  vat: fromDecimal(e.vat),
  gross: fromDecimal(e.gross)
})

export const priceLine = (line: LineInput, currency: string): LineAmounts => toAmounts(priceExact(line, currency))

export const priceDocument = <L extends LineInput>(
  lines: ReadonlyArray<L>,
  currency: string
): { readonly lines: ReadonlyArray<L & LineAmounts> } & DocumentAmounts => {
  const exact = lines.map((line) => priceExact(line, currency))
  const zero: Exact = { net: ZERO, vat: ZERO, gross: ZERO }

  // Keyed by the normalised decimal so that rates equal in value share a row whatever their spelling.
  const byRate = new Map<string, { readonly rate: BigDecimal.BigDecimal; readonly sums: Exact }>()
  lines.forEach((line, i) => {
    const rate = BigDecimal.normalize(decimal(line.vat_rate))
    const key = BigDecimal.format(rate)
    const row = byRate.get(key) ?? { rate, sums: zero }
    byRate.set(key, { rate, sums: add(row.sums, exact[i]!) })
  })
  const vat_summary = [...byRate.values()]
    .sort((a, b) => BigDecimal.Order(b.rate, a.rate))
    .map(({ rate, sums }): VatSummaryRow => ({ vat_rate: toJson(rate), ...toAmounts(sums) }))

  const totals = exact.reduce(add, zero)
  return {
    lines: lines.map((line, i) => ({ ...line, ...toAmounts(exact[i]!) })),
    subtotal: fromDecimal(totals.net),
    vat_total: fromDecimal(totals.vat),
    total: fromDecimal(totals.gross),
    vat_summary
  }
}
