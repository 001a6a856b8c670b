/**
 * A small sales scorecard an assistant can explain: six measures, each with a value, a status against
 * fixed thresholds and a sentence saying what it counted. The thresholds live in one constant.
 */
import * as BigDecimal from "effect/BigDecimal"
import type { Deal, StageVisit } from "../Deals/DealSchemas.js"
import type { Pipeline } from "../Deals/PipelineSchemas.js"
import { decimal, toJson } from "../Money/Amount.js"
import type { HealthMeasure, HealthStatus, SalesHealth, UnpaidInvoice } from "./AnalyticsSchemas.js"
import { weightedValue } from "./CashFlowForecast.js"
import * as CurrencyTotals from "./CurrencyTotals.js"
import { closedSince, since } from "./PipelineSummary.js"
import { stalledCount } from "./StalledDeals.js"

/**
 * `higher`: good at or above `good`, poor below `poor`. `lower`: good at or below `good`, poor above `poor`.
 * Between the two: watch.
 */
export const HEALTH_THRESHOLDS = {
  win_rate: { label: "Win rate", unit: "%", better: "higher", good: 30, poor: 15 },
  stalled_share: { label: "Stalled open deals", unit: "%", better: "lower", good: 20, poor: 40 },
  overdue_close_share: { label: "Open deals past expected close", unit: "%", better: "lower", good: 10, poor: 25 },
  overdue_tasks: { label: "Overdue open tasks", unit: "tasks", better: "lower", good: 5, poor: 20 },
  overdue_receivables_share: { label: "Overdue receivables", unit: "%", better: "lower", good: 10, poor: 30 },
  pipeline_coverage: { label: "Pipeline coverage", unit: "ratio", better: "higher", good: 3, poor: 1 }
} as const

export type MeasureKey = keyof typeof HEALTH_THRESHOLDS

/** Status points and the overall bands: good 100, watch 50, poor 0; overall good ≥ 75, poor < 40. */
export const SCORE = { good: 100, watch: 50, poor: 0, overall_good: 75, overall_poor: 40 } as const

export const statusOf = (key: MeasureKey, value: number | null): HealthStatus => {
  if (value === null) return "watch"
  const t = HEALTH_THRESHOLDS[key]
  if (t.better === "higher") return value >= t.good ? "good" : value < t.poor ? "poor" : "watch"
  return value <= t.good ? "good" : value > t.poor ? "poor" : "watch"
}

const measure = (key: MeasureKey, value: number | null, explanation: string): HealthMeasure => {
  const t = HEALTH_THRESHOLDS[key]
  return {
    key,
    label: t.label,
    value,
    unit: t.unit,
    status: statusOf(key, value),
    threshold: { good: t.good, poor: t.poor },
    explanation
  }
}

/** A share in percent to one decimal; `null` when there is nothing to divide by. */
const percent = (part: number, whole: number): number | null =>
  whole === 0 ? null : Math.round((part / whole) * 1000) / 10

const percentOf = (part: BigDecimal.BigDecimal, whole: BigDecimal.BigDecimal): number | null =>
  BigDecimal.isZero(whole)
    ? null
    : toJson(
        BigDecimal.round(BigDecimal.unsafeDivide(BigDecimal.multiply(part, decimal(100)), whole), {
          scale: 1,
          mode: "half-from-zero"
        })
      )

export interface HealthInput {
  readonly days: number
  readonly now: string
  /** Today in the organisation's time zone. */
  readonly today: string
  readonly defaultCurrency: string
  readonly pipelines: ReadonlyArray<Pipeline>
  /** Live deals: the open ones and at least those closed within the window. */
  readonly deals: ReadonlyArray<Deal>
  readonly visits: ReadonlyArray<StageVisit>
  /** The unpaid set (as `list_unpaid_invoices` gives it). */
  readonly unpaid: ReadonlyArray<UnpaidInvoice>
  readonly overdueTasks: number
}

export const salesHealth = (input: HealthInput): SalesHealth => {
  const from = since(input.now, input.days)
  const window = `the last ${input.days} days`
  const open = input.deals.filter((deal) => deal.status_kind === "open")
  const won = input.deals.filter((deal) => closedSince(deal, "won", from))
  const lost = input.deals.filter((deal) => closedSince(deal, "lost", from))

  const winRate = percent(won.length, won.length + lost.length)
  const stalled = stalledCount(open, input.visits, input.now)
  const overdueClose = open.filter(
    (deal) => deal.expected_close_date !== null && deal.expected_close_date < input.today
  ).length

  // Per currency, overdue outstanding over all outstanding; the worst currency is reported.
  const all = CurrencyTotals.sumBy(
    input.unpaid,
    (i) => i.currency,
    (i) => i.outstanding
  )
  const overdue = CurrencyTotals.sumBy(
    input.unpaid,
    (i) => i.currency,
    (i) => (i.days_past_due > 0 ? i.outstanding : null)
  )
  let worst: { currency: string; share: number } | undefined
  for (const [currency, total] of all) {
    const share = percentOf(overdue.get(currency) ?? CurrencyTotals.ZERO, total)
    if (share !== null && (worst === undefined || share > worst.share)) worst = { currency, share }
  }

  const c = input.defaultCurrency
  let pipelineValue = CurrencyTotals.ZERO
  for (const deal of open) {
    const weighted = deal.currency === c ? weightedValue(input.pipelines, deal) : undefined
    if (weighted !== undefined) pipelineValue = BigDecimal.sum(pipelineValue, weighted)
  }
  const wonValue = CurrencyTotals.sumBy(
    won.filter((deal) => deal.currency === c),
    (deal) => deal.currency,
    (deal) => deal.value
  ).get(c)
  const coverage =
    wonValue === undefined || BigDecimal.isZero(wonValue)
      ? null
      : toJson(BigDecimal.round(BigDecimal.unsafeDivide(pipelineValue, wonValue), { scale: 2, mode: "half-from-zero" }))

  const measures = [
    measure(
      "win_rate",
      winRate,
      winRate === null
        ? `No deal was won or lost in ${window}.`
        : `${won.length} won of ${won.length + lost.length} deals closed (won or lost) in ${window}.`
    ),
    measure(
      "stalled_share",
      percent(stalled, open.length),
      open.length === 0
        ? "There are no open deals."
        : `${stalled} of ${open.length} open deals have been in their stage longer than the stage's median time.`
    ),
    measure(
      "overdue_close_share",
      percent(overdueClose, open.length),
      open.length === 0
        ? "There are no open deals."
        : `${overdueClose} of ${open.length} open deals have an expected close date before today.`
    ),
    measure("overdue_tasks", input.overdueTasks, `${input.overdueTasks} open tasks are past their due time.`),
    measure(
      "overdue_receivables_share",
      worst?.share ?? null,
      worst === undefined
        ? "Nothing is outstanding."
        : `${worst.share} % of the outstanding ${worst.currency} receivables are past due (the worst currency of ${all.size}).`
    ),
    measure(
      "pipeline_coverage",
      coverage,
      coverage === null
        ? `Nothing was won in ${c} in ${window}, so there is no baseline.`
        : `Open pipeline weighted by stage probability (${CurrencyTotals.money(pipelineValue, c)} ${c}) over the ` +
            `value won in ${window} (${CurrencyTotals.money(wonValue ?? CurrencyTotals.ZERO, c)} ${c}).`
    )
  ]

  const valued = measures.filter((m) => m.value !== null)
  const score =
    valued.length === 0 ? null : Math.round(valued.reduce((sum, m) => sum + SCORE[m.status], 0) / valued.length)
  const status: HealthStatus =
    score === null ? "watch" : score >= SCORE.overall_good ? "good" : score < SCORE.overall_poor ? "poor" : "watch"
  return { as_of: input.now, window_days: input.days, score, status, measures }
}
