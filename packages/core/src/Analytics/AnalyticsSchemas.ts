/**
 * Inputs and answers of the read-only analyses (the assistant's pipeline, receivables, stalled deals,
 * cash-flow and health tools). Money is a JSON number in major units, always beside its currency: no
 * figure ever adds two currencies.
 */

import { z } from "zod"
import { CompanyId } from "../Companies/CompanyIds.js"
import { ContactId } from "../Contacts/ContactIds.js"
import { DealId } from "../Deals/DealIds.js"
import { DateOnly } from "../Deals/DealSchemas.js"
import { PipelineId, StageId } from "../Deals/PipelineIds.js"
import { StageKind } from "../Deals/PipelineSchemas.js"
import { InvoiceId } from "../Invoicing/InvoiceIds.js"
import { InvoiceKind, InvoiceStatus } from "../Invoicing/InvoiceSchemas.js"
import { Amount } from "../Money/Amount.js"
import { UserId } from "../Organisation/UserIds.js"
import { Timestamp } from "../Wire.js"

/** One currency's sum. */
export const CurrencyTotal = z.object({ currency: z.string(), total: Amount })
export type CurrencyTotal = z.infer<typeof CurrencyTotal>

const ClosedDeals = z.object({
  count: z.number().int(),
  values: z.array(CurrencyTotal).describe("the closed deals' values summed per currency")
})

// ---------------------------------------------------------------------------------------------------------
// pipeline_summary

export const PipelineSummaryQuery = z.object({
  pipeline_id: PipelineId.optional().describe("one pipeline; all of the organisation's pipelines when omitted")
})

export const StageSummary = z.object({
  stage_id: StageId,
  name: z.string(),
  kind: StageKind,
  count: z.number().int().describe("live deals now in the stage (a deal without a value counts but adds nothing)"),
  values: z.array(CurrencyTotal)
})

export const PipelineSummaryItem = z.object({
  pipeline_id: PipelineId,
  name: z.string(),
  stages: z.array(StageSummary).describe("in pipeline order, empty stages included"),
  won_last_30_days: ClosedDeals,
  lost_last_30_days: ClosedDeals
})
export type PipelineSummaryItem = z.infer<typeof PipelineSummaryItem>

export const PipelineSummary = z.object({ pipelines: z.array(PipelineSummaryItem) })
export type PipelineSummary = z.infer<typeof PipelineSummary>

// ---------------------------------------------------------------------------------------------------------
// list_unpaid_invoices and receivables_ageing

export const ReceivablesQuery = z.object({
  contact_id: ContactId.optional().describe("only this contact's invoices"),
  company_id: CompanyId.optional().describe("only this company's invoices")
})
export type ReceivablesQuery = z.output<typeof ReceivablesQuery>

export const UnpaidInvoicesQuery = ReceivablesQuery.extend({
  overdue_only: z.boolean().optional().describe("true keeps only invoices at least one day past their due date")
})
export type UnpaidInvoicesQuery = z.output<typeof UnpaidInvoicesQuery>

export const UnpaidInvoice = z.object({
  id: InvoiceId,
  number: z.string().nullable(),
  kind: InvoiceKind,
  status: InvoiceStatus,
  contact_id: ContactId.nullable(),
  company_id: CompanyId.nullable(),
  currency: z.string(),
  total: Amount.describe("gross"),
  paid_amount: Amount,
  outstanding: Amount.describe("total − paid_amount, gross, in the invoice's currency"),
  issue_date: z.string(),
  due_date: z.string(),
  days_past_due: z
    .number()
    .int()
    .describe("days from the due date to today in the organisation's time zone; 0 when not yet due")
})
export type UnpaidInvoice = z.infer<typeof UnpaidInvoice>

export const UnpaidInvoiceList = z.object({ items: z.array(UnpaidInvoice), has_more: z.boolean() })

export const Bucket = z.object({ count: z.number().int(), amount: Amount })
export type Bucket = z.infer<typeof Bucket>

export const BUCKETS = ["not_yet_due", "days_1_30", "days_31_60", "days_61_90", "days_90_plus"] as const
export type BucketKey = (typeof BUCKETS)[number]

export const CurrencyAgeing = z.object({
  currency: z.string(),
  not_yet_due: Bucket,
  days_1_30: Bucket,
  days_31_60: Bucket,
  days_61_90: Bucket,
  days_90_plus: Bucket.describe("91 days past due and more"),
  total: Bucket
})
export type CurrencyAgeing = z.infer<typeof CurrencyAgeing>

export const ReceivablesAgeing = z.object({
  as_of: DateOnly.describe("today in the organisation's time zone"),
  currencies: z.array(CurrencyAgeing).describe("one entry per currency; amounts are outstanding gross")
})
export type ReceivablesAgeing = z.infer<typeof ReceivablesAgeing>

// ---------------------------------------------------------------------------------------------------------
// stalled_deals

export const StalledDealsQuery = z.object({
  pipeline_id: PipelineId.optional().describe("one pipeline; all pipelines when omitted")
})
export type StalledDealsQuery = z.output<typeof StalledDealsQuery>

export const StalledDeal = z.object({
  deal_id: DealId,
  title: z.string(),
  pipeline_id: PipelineId,
  stage_id: StageId,
  stage_name: z.string(),
  days_in_stage: z.number().describe("days since the deal entered its current stage, 1 decimal"),
  median_days: z
    .number()
    .nullable()
    .describe("median days deals spent in this stage before leaving it; null when no deal has left it yet"),
  value: Amount.nullable(),
  currency: z.string(),
  owner_id: UserId.nullable(),
  contact_id: ContactId.nullable()
})
export type StalledDeal = z.infer<typeof StalledDeal>

export const StalledDealList = z.object({ items: z.array(StalledDeal), has_more: z.boolean() })

// ---------------------------------------------------------------------------------------------------------
// cash_flow_forecast

export const CashFlowQuery = z.object({
  months: z.number().int().min(1).max(24).default(6).describe("how many months from the current one; default 6")
})
export type CashFlowQuery = z.output<typeof CashFlowQuery>

export const MonthAmounts = z.object({
  currency: z.string(),
  invoiced: Amount.describe("outstanding of issued unpaid invoices due this month (overdue ones: current month)"),
  contracted: Amount.describe("accepted quotes not yet invoiced, expected at acceptance + payment terms"),
  weighted: Amount.describe("open deals' value × stage probability, by expected close date")
})
export type MonthAmounts = z.infer<typeof MonthAmounts>

export const CashFlowForecast = z.object({
  currency_note: z.string(),
  months: z.array(z.object({ month: z.string().describe("YYYY-MM"), amounts: z.array(MonthAmounts) })),
  excluded_deals: z.number().int().describe("open deals left out: no value or no expected close date")
})
export type CashFlowForecast = z.infer<typeof CashFlowForecast>

// ---------------------------------------------------------------------------------------------------------
// sales_health

export const SalesHealthQuery = z.object({
  days: z.number().int().min(7).max(365).default(90).describe("the look-back window in days; default 90")
})
export type SalesHealthQuery = z.output<typeof SalesHealthQuery>

export const HealthStatus = z.enum(["good", "watch", "poor"])
export type HealthStatus = z.infer<typeof HealthStatus>

export const HealthMeasure = z.object({
  key: z.string(),
  label: z.string(),
  value: z.number().nullable().describe("null when there is nothing to measure"),
  unit: z.string(),
  status: HealthStatus,
  threshold: z.object({ good: z.number(), poor: z.number() }),
  explanation: z.string()
})
export type HealthMeasure = z.infer<typeof HealthMeasure>

export const SalesHealth = z.object({
  as_of: Timestamp,
  window_days: z.number().int(),
  score: z.number().nullable().describe("0-100: good 100, watch 50, poor 0, averaged over measures with a value"),
  status: HealthStatus,
  measures: z.array(HealthMeasure)
})
export type SalesHealth = z.infer<typeof SalesHealth>
