/**
 * The analysis tools of the assistant interface: read-only figures computed by the kernel's `Analytics`
 * service (pipeline, receivables, stalled deals, cash-flow forecast, sales health). Money is always per
 * currency; the descriptions say so, so that an assistant never adds two currencies itself.
 */
import { Analytics } from "@crm/core"
import * as Effect from "effect/Effect"
import { PDF_NOTE, withPdf, withPdfs } from "../PdfLinks.js"
import { limitInput, listResult, READ_ONLY, type Tool, tool } from "../Tool.js"

export const UNPAID_INVOICES_CAP = 200
export const STALLED_DEALS_CAP = 200

const pipelineSummary = tool({
  name: "pipeline_summary",
  title: "Pipeline summary",
  description:
    "Per pipeline: every stage in order with the number of deals in it and their values summed per currency, plus deals won and lost in the last 30 days (count and values per currency). " +
    "Use it for an overview of the sales pipeline; give `pipeline_id` for one pipeline. Never add values of different currencies.",
  scope: "read",
  annotations: READ_ONLY,
  input: Analytics.PipelineSummaryQuery,
  output: Analytics.PipelineSummary,
  run: (input, { principal }) =>
    Effect.flatMap(Analytics.Analytics, (analytics) => analytics.pipelineSummary(principal.organisation, input))
})

const listUnpaidInvoices = tool({
  name: "list_unpaid_invoices",
  title: "List unpaid invoices",
  description:
    "Lists issued invoices still waiting for money (status issued, partial or overdue; never drafts, proformas, cancelled invoices or stornos) with `outstanding` (gross, total − paid) and `days_past_due` (0 when not yet due), most days past due first. " +
    "`overdue_only: true` keeps those past their due date; `contact_id` / `company_id` narrow to one customer." +
    PDF_NOTE,
  scope: "read",
  annotations: READ_ONLY,
  input: Analytics.UnpaidInvoicesQuery.extend({ limit: limitInput(UNPAID_INVOICES_CAP) }),
  output: listResult(withPdf(Analytics.UnpaidInvoice)),
  run: (input, { principal }) =>
    Effect.flatMap(Analytics.Analytics, (analytics) => analytics.unpaidInvoices(principal.organisation, input)).pipe(
      Effect.map(withPdfs("invoices"))
    )
})

const receivablesAgeing = tool({
  name: "receivables_ageing",
  title: "Receivables ageing",
  description:
    "Sums the outstanding amount of unpaid invoices per currency into ageing buckets by days past due: not yet due, 1-30, 31-60, 61-90 and 90+ (91 and more), each with a count and amount, plus each currency's total. " +
    "Use it to judge how late customers pay; use `list_unpaid_invoices` for the invoices themselves.",
  scope: "read",
  annotations: READ_ONLY,
  input: Analytics.ReceivablesQuery,
  output: Analytics.ReceivablesAgeing,
  run: (input, { principal }) =>
    Effect.flatMap(Analytics.Analytics, (analytics) => analytics.receivablesAgeing(principal.organisation, input))
})

const stalledDeals = tool({
  name: "stalled_deals",
  title: "Stalled deals",
  description:
    "Lists open deals that have been in their current stage longer than the median time deals spent in that stage (`days_in_stage` vs `median_days`), the most overdue relative to the median first. " +
    "After them come open deals in stages no deal has left yet, with `median_days: null`: there is no baseline to judge them by.",
  scope: "read",
  annotations: READ_ONLY,
  input: Analytics.StalledDealsQuery.extend({ limit: limitInput(STALLED_DEALS_CAP) }),
  output: Analytics.StalledDealList,
  run: (input, { principal }) =>
    Effect.flatMap(Analytics.Analytics, (analytics) => analytics.stalledDeals(principal.organisation, input))
})

const cashFlowForecast = tool({
  name: "cash_flow_forecast",
  title: "Cash-flow forecast",
  description:
    "Money expected in per month (from the current month, `months` 1-24, default 6) and per currency, as three separate figures never to be summed: `invoiced` (outstanding invoices by due date, overdue ones in the current month), " +
    "`contracted` (accepted quotes not yet invoiced, at acceptance + payment terms) and `weighted` (open deals' value × stage probability by expected close date; `excluded_deals` counts those without value or close date).",
  scope: "read",
  annotations: READ_ONLY,
  input: Analytics.CashFlowQuery,
  output: Analytics.CashFlowForecast,
  run: (input, { principal }) =>
    Effect.flatMap(Analytics.Analytics, (analytics) => analytics.cashFlowForecast(principal.organisation, input))
})

const salesHealth = tool({
  name: "sales_health",
  title: "Sales health",
  description:
    "A scorecard over the last `days` (7-365, default 90): win rate, share of stalled open deals, share of open deals past their expected close date, overdue tasks, share of overdue receivables (worst currency) and pipeline coverage, " +
    "each with its value, status good/watch/poor, thresholds and a one-sentence explanation, plus an overall score 0-100. Use it to answer 'how are sales going?' and explain the weak spots.",
  scope: "read",
  annotations: READ_ONLY,
  input: Analytics.SalesHealthQuery,
  output: Analytics.SalesHealth,
  run: (input, { principal }) =>
    Effect.flatMap(Analytics.Analytics, (analytics) => analytics.salesHealth(principal.organisation, input))
})

export const analyticsTools: ReadonlyArray<Tool> = [
  pipelineSummary,
  listUnpaidInvoices,
  stalledDeals,
  cashFlowForecast,
  receivablesAgeing,
  salesHealth
]
