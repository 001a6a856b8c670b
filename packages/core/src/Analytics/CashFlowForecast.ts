/**
 * Money expected in, month by month, as three separate figures that are never added together:
 * - invoiced: outstanding of unpaid invoices by due-date month (already overdue: the current month);
 * - contracted: accepted quotes not yet invoiced, expected at acceptance + the payment terms;
 * - weighted: open deals' value × their stage's probability, by expected close date.
 * Anything dated before the current month counts in the current month; anything after the horizon is
 * left out. Every figure is per currency; currencies are never converted.
 */

import * as BigDecimal from "effect/BigDecimal"
import type { Deal } from "../Deals/DealSchemas.js"
import type { DealSettings } from "../Deals/DealSettings.js"
import type { StageId } from "../Deals/PipelineIds.js"
import type { Pipeline } from "../Deals/PipelineSchemas.js"
import type { Invoice } from "../Invoicing/InvoiceSchemas.js"
import { addDays, dateIn } from "../internal/dates.js"
import { decimal, toDecimal } from "../Money/Amount.js"
import type { OrganisationSettings } from "../Organisation.js"
import type { Quote } from "../Quotes/QuoteSchemas.js"
import type { CashFlowForecast } from "./AnalyticsSchemas.js"
import * as CurrencyTotals from "./CurrencyTotals.js"
import { isUnpaid, outstandingOf } from "./Receivables.js"

export const CURRENCY_NOTE =
  "Each amount is in its own currency; currencies are never converted or added together. invoiced, contracted " +
  "and weighted are separate estimates of different certainty: do not sum them."

/** `YYYY-MM` plus `months` months. */
export const addMonths = (month: string, months: number): string => {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + months
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${String((index % 12) + 1).padStart(2, "0")}`
}

/**
 * A stage's win probability as a fraction: its `probability` (percent) when the settings give one, else its
 * position among the pipeline's open stages, stage i of n → i / (n + 1). `undefined` for a stage that is
 * not an open stage of the pipeline.
 */
export const stageProbability = (pipeline: Pipeline, stageId: StageId): BigDecimal.BigDecimal | undefined => {
  const open = pipeline.stages.filter((stage) => stage.kind === "open")
  const index = open.findIndex((stage) => stage.id === stageId)
  if (index < 0) return undefined
  const stage = open[index]
  if (stage?.probability !== undefined) return BigDecimal.unsafeDivide(decimal(stage.probability), decimal(100))
  return BigDecimal.unsafeDivide(decimal(index + 1), decimal(open.length + 1))
}

/** The deal's value × its stage's probability, unrounded; `undefined` when it has no value or stage. */
export const weightedValue = (pipelines: ReadonlyArray<Pipeline>, deal: Deal): BigDecimal.BigDecimal | undefined => {
  if (deal.value === null) return undefined
  const pipeline = pipelines.find((p) => p.id === deal.pipeline_id)
  const probability = pipeline === undefined ? undefined : stageProbability(pipeline, deal.status_id)
  return probability === undefined ? undefined : BigDecimal.multiply(toDecimal(deal.value), probability)
}

/** When an accepted quote is expected to be paid: its acceptance date (the last change) + the payment terms. */
export const contractedDate = (
  quote: Quote,
  settings: Pick<OrganisationSettings, "timezone" | "payment_terms_days">
): string => addDays(dateIn(settings.timezone, Date.parse(quote.updated_at)), settings.payment_terms_days)

/** An accepted quote that has not become an invoice yet. */
export const isContracted = (quote: Quote): boolean => quote.status === "accepted" && quote.invoice_id === null

export interface ForecastInput {
  readonly months: number
  /** Today in the organisation's time zone. */
  readonly today: string
  readonly settings: Pick<OrganisationSettings & DealSettings, "timezone" | "payment_terms_days" | "pipelines">
  /** Candidates; only the unpaid set counts. */
  readonly invoices: ReadonlyArray<Invoice>
  /** Candidates; only accepted quotes without an invoice count. */
  readonly quotes: ReadonlyArray<Quote>
  /** Candidates; only open deals count. */
  readonly deals: ReadonlyArray<Deal>
}

type Figure = "invoiced" | "contracted" | "weighted"

export const forecast = (input: ForecastInput): CashFlowForecast => {
  const current = input.today.slice(0, 7)
  const months = Array.from({ length: input.months }, (_, i) => addMonths(current, i))
  const last = months[months.length - 1] as string
  const sums = new Map<string, Map<string, Record<Figure, BigDecimal.BigDecimal>>>(months.map((m) => [m, new Map()]))
  const currencies = new Set<string>()

  const put = (date: string, currency: string, figure: Figure, amount: BigDecimal.BigDecimal) => {
    // Before the current month: it is due now. After the horizon: not in this forecast.
    const month = date.slice(0, 7) < current ? current : date.slice(0, 7)
    if (month > last) return
    const perCurrency = sums.get(month) as Map<string, Record<Figure, BigDecimal.BigDecimal>>
    const row = perCurrency.get(currency) ?? {
      invoiced: CurrencyTotals.ZERO,
      contracted: CurrencyTotals.ZERO,
      weighted: CurrencyTotals.ZERO
    }
    perCurrency.set(currency, { ...row, [figure]: BigDecimal.sum(row[figure], amount) })
    currencies.add(currency)
  }

  for (const invoice of input.invoices) {
    if (isUnpaid(invoice)) put(invoice.due_date, invoice.currency, "invoiced", outstandingOf(invoice))
  }
  for (const quote of input.quotes) {
    if (isContracted(quote)) {
      put(contractedDate(quote, input.settings), quote.currency, "contracted", toDecimal(quote.total))
    }
  }
  let excluded = 0
  for (const deal of input.deals) {
    if (deal.status_kind !== "open") continue
    const weighted = weightedValue(input.settings.pipelines, deal)
    if (weighted === undefined || deal.expected_close_date === null) {
      excluded += 1
      continue
    }
    put(deal.expected_close_date, deal.currency, "weighted", weighted)
  }

  const codes = [...currencies].sort()
  return {
    currency_note: CURRENCY_NOTE,
    months: months.map((month) => ({
      month,
      amounts: codes.map((currency) => {
        const row = sums.get(month)?.get(currency)
        const figure = (name: Figure) => CurrencyTotals.money(row?.[name] ?? CurrencyTotals.ZERO, currency)
        return {
          currency,
          invoiced: figure("invoiced"),
          contracted: figure("contracted"),
          weighted: figure("weighted")
        }
      })
    })),
    excluded_deals: excluded
  }
}
