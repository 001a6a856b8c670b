/**
 * What customers still owe: the unpaid invoices with their days past due, and the same set aged into
 * buckets per currency. "Today" is a calendar date in the organisation's time zone.
 */
import * as BigDecimal from "effect/BigDecimal"
import type { Invoice } from "../Invoicing/InvoiceSchemas.js"
import { toDecimal } from "../Money/Amount.js"
import { roundMinor } from "../Money/Currency.js"
import type { BucketKey, CurrencyAgeing, ReceivablesAgeing, UnpaidInvoice } from "./AnalyticsSchemas.js"
import * as CurrencyTotals from "./CurrencyTotals.js"

const DAY_MS = 86_400_000

/** Statuses that still wait for money. Drafts, paid and cancelled invoices owe nothing. */
export const UNPAID_STATUSES = ["issued", "partial", "overdue"] as const
/** A proforma asks for money without being a tax document, a storno is a credit: neither is a receivable. */
export const EXCLUDED_KINDS = ["proforma", "storno"] as const

/** Whole days from `from` to `to` (both `YYYY-MM-DD`); negative when `to` is earlier. */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / DAY_MS)

export const daysPastDue = (dueDate: string, today: string): number => Math.max(0, daysBetween(dueDate, today))

export const outstandingOf = (invoice: Invoice): BigDecimal.BigDecimal =>
  roundMinor(BigDecimal.subtract(toDecimal(invoice.total), toDecimal(invoice.paid_amount)), invoice.currency)

/**
 * In the unpaid set: an issued, partly paid or overdue invoice that is neither a proforma nor a storno and
 * still has a positive amount outstanding (a negative corrective invoice is a credit, not a receivable).
 */
export const isUnpaid = (invoice: Invoice): boolean =>
  (UNPAID_STATUSES as ReadonlyArray<string>).includes(invoice.status) &&
  !(EXCLUDED_KINDS as ReadonlyArray<string>).includes(invoice.kind) &&
  BigDecimal.isPositive(outstandingOf(invoice))

export const toUnpaid = (invoice: Invoice, today: string): UnpaidInvoice => ({
  id: invoice.id,
  number: invoice.number ?? null,
  kind: invoice.kind,
  status: invoice.status,
  contact_id: invoice.contact_id,
  company_id: invoice.company_id,
  currency: invoice.currency,
  total: invoice.total,
  paid_amount: invoice.paid_amount,
  outstanding: CurrencyTotals.money(outstandingOf(invoice), invoice.currency),
  issue_date: invoice.issue_date,
  due_date: invoice.due_date,
  days_past_due: daysPastDue(invoice.due_date, today)
})

/** Most days past due first, then the earlier due date, then the number. */
export const byUrgency = (x: UnpaidInvoice, y: UnpaidInvoice): number =>
  y.days_past_due - x.days_past_due ||
  (x.due_date < y.due_date ? -1 : x.due_date > y.due_date ? 1 : 0) ||
  (x.number ?? "").localeCompare(y.number ?? "") ||
  x.id.localeCompare(y.id)

/** The unpaid set of `invoices`, most urgent first; `overdueOnly` keeps those at least one day past due. */
export const unpaid = (
  invoices: ReadonlyArray<Invoice>,
  today: string,
  options: { readonly overdueOnly?: boolean | undefined } = {}
): Array<UnpaidInvoice> =>
  invoices
    .filter(isUnpaid)
    .map((invoice) => toUnpaid(invoice, today))
    .filter((item) => options.overdueOnly !== true || item.days_past_due > 0)
    .sort(byUrgency)

export const bucketOf = (daysPastDue: number): BucketKey =>
  daysPastDue <= 0
    ? "not_yet_due"
    : daysPastDue <= 30
      ? "days_1_30"
      : daysPastDue <= 60
        ? "days_31_60"
        : daysPastDue <= 90
          ? "days_61_90"
          : "days_90_plus"

interface Sum {
  count: number
  amount: BigDecimal.BigDecimal
}

/** The unpaid items' outstanding summed per currency into ageing buckets, plus each currency's total. */
export const ageing = (items: ReadonlyArray<UnpaidInvoice>, today: string): ReceivablesAgeing => {
  const byCurrency = new Map<string, Record<BucketKey | "total", Sum>>()
  const empty = (): Sum => ({ count: 0, amount: CurrencyTotals.ZERO })
  for (const item of items) {
    let sums = byCurrency.get(item.currency)
    if (sums === undefined) {
      sums = {
        not_yet_due: empty(),
        days_1_30: empty(),
        days_31_60: empty(),
        days_61_90: empty(),
        days_90_plus: empty(),
        total: empty()
      }
      byCurrency.set(item.currency, sums)
    }
    const amount = toDecimal(item.outstanding)
    for (const key of [bucketOf(item.days_past_due), "total"] as const) {
      sums[key].count += 1
      sums[key].amount = BigDecimal.sum(sums[key].amount, amount)
    }
  }
  const currencies = [...byCurrency.keys()].sort().map((currency): CurrencyAgeing => {
    const sums = byCurrency.get(currency) as Record<BucketKey | "total", Sum>
    const wire = (sum: Sum) => ({ count: sum.count, amount: CurrencyTotals.money(sum.amount, currency) })
    return {
      currency,
      not_yet_due: wire(sums.not_yet_due),
      days_1_30: wire(sums.days_1_30),
      days_31_60: wire(sums.days_31_60),
      days_61_90: wire(sums.days_61_90),
      days_90_plus: wire(sums.days_90_plus),
      total: wire(sums.total)
    }
  })
  return { as_of: today, currencies }
}
