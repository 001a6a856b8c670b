/**
 * Read-only analyses for the assistant: the pipeline at a glance, what customers owe and how late, deals
 * stuck in a stage, the cash expected month by month, and a sales scorecard. The service loads the data
 * through the storage ports and hands it to the pure measures in `Analytics/`.
 */

import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type {
  CashFlowForecast,
  CashFlowQuery,
  PipelineSummary,
  ReceivablesAgeing,
  ReceivablesQuery,
  SalesHealth,
  SalesHealthQuery,
  StalledDeal,
  StalledDealsQuery,
  UnpaidInvoice,
  UnpaidInvoicesQuery
} from "./Analytics/AnalyticsSchemas.js"
import * as CashFlow from "./Analytics/CashFlowForecast.js"
import * as Pipelines from "./Analytics/PipelineSummary.js"
import * as Receivables from "./Analytics/Receivables.js"
import * as Health from "./Analytics/SalesHealth.js"
import * as Stalled from "./Analytics/StalledDeals.js"
import * as BusinessTime from "./BusinessClock/BusinessTime.js"
import { DealRepository } from "./Deals/DealRepository.js"
import type { PipelineId } from "./Deals/PipelineIds.js"
import type { Pipeline } from "./Deals/PipelineSchemas.js"
import { NotFound, type StorageError } from "./Errors.js"
import { InvoiceRepository } from "./Invoicing/InvoiceRepository.js"
import { dateIn } from "./internal/dates.js"
import { operation } from "./internal/operation.js"
import type { Organisation } from "./Organisation.js"
import { QuoteRepository } from "./Quotes/QuoteRepository.js"
import { TaskRepository } from "./Tasks/TaskRepository.js"

// The measures are not named after their answers: a namespace would hide the answer's schema of the same name.
export * from "./Analytics/AnalyticsSchemas.js"
export * as CashFlow from "./Analytics/CashFlowForecast.js"
export * as Pipelines from "./Analytics/PipelineSummary.js"
export * as Receivables from "./Analytics/Receivables.js"
export * as Health from "./Analytics/SalesHealth.js"
export * as StalledDeals from "./Analytics/StalledDeals.js"

export interface ListAnswer<A> {
  readonly items: ReadonlyArray<A>
  readonly has_more: boolean
}

export class Analytics extends Context.Tag("@crm/core/Analytics")<
  Analytics,
  {
    /** Unknown `pipeline_id`: `not_found`. */
    readonly pipelineSummary: (
      organisation: Organisation,
      query: { readonly pipeline_id?: PipelineId | undefined }
    ) => Effect.Effect<PipelineSummary, NotFound | StorageError>
    readonly unpaidInvoices: (
      organisation: Organisation,
      query: UnpaidInvoicesQuery & { readonly limit: number }
    ) => Effect.Effect<ListAnswer<UnpaidInvoice>, StorageError>
    readonly receivablesAgeing: (
      organisation: Organisation,
      query: ReceivablesQuery
    ) => Effect.Effect<ReceivablesAgeing, StorageError>
    /** Unknown `pipeline_id`: `not_found`. */
    readonly stalledDeals: (
      organisation: Organisation,
      query: StalledDealsQuery & { readonly limit: number }
    ) => Effect.Effect<ListAnswer<StalledDeal>, NotFound | StorageError>
    readonly cashFlowForecast: (
      organisation: Organisation,
      query: CashFlowQuery
    ) => Effect.Effect<CashFlowForecast, StorageError>
    readonly salesHealth: (
      organisation: Organisation,
      query: SalesHealthQuery
    ) => Effect.Effect<SalesHealth, StorageError>
  }
>() {}

/** Now as an ISO instant, and today as the organisation's calendar sees it: by its business clock. */
const clockOf = (organisation: Organisation) =>
  Effect.map(BusinessTime.millis(organisation), (ms) => ({
    now: new Date(ms).toISOString(),
    today: dateIn(organisation.settings.timezone, ms)
  }))

const pipelinesOf = (
  organisation: Organisation,
  pipelineId: PipelineId | undefined
): Effect.Effect<ReadonlyArray<Pipeline>, NotFound> => {
  const all = organisation.settings.pipelines
  if (pipelineId === undefined) return Effect.succeed(all)
  const one = all.filter((pipeline) => pipeline.id === pipelineId)
  return one.length === 0 ? Effect.fail(new NotFound({ detail: "no such pipeline" })) : Effect.succeed(one)
}

const page = <A>(items: ReadonlyArray<A>, limit: number): ListAnswer<A> => ({
  items: items.slice(0, limit),
  has_more: items.length > limit
})

export const make = Effect.gen(function* () {
  const deals = yield* DealRepository
  const invoices = yield* InvoiceRepository
  const quotes = yield* QuoteRepository
  const tasks = yield* TaskRepository

  const unpaidOf = (organisation: Organisation, query: ReceivablesQuery, today: string, overdueOnly = false) =>
    Effect.map(
      invoices.unpaid(organisation.id, {
        ...(query.contact_id === undefined ? {} : { contactId: query.contact_id }),
        ...(query.company_id === undefined ? {} : { companyId: query.company_id })
      }),
      (rows) => Receivables.unpaid(rows, today, { overdueOnly })
    )

  return Analytics.of({
    pipelineSummary: operation("Analytics.pipelineSummary")(function* (organisation, query) {
      const pipelines = yield* pipelinesOf(organisation, query.pipeline_id)
      const { now } = yield* clockOf(organisation)
      // Stage rows count every live deal in the stage, won and lost stages included.
      const live = yield* deals.openOrClosedSince(organisation.id, null)
      return Pipelines.summarise(pipelines, live, now)
    }),

    unpaidInvoices: operation("Analytics.unpaidInvoices")(function* (organisation, query) {
      const { today } = yield* clockOf(organisation)
      return page(yield* unpaidOf(organisation, query, today, query.overdue_only === true), query.limit)
    }),

    receivablesAgeing: operation("Analytics.receivablesAgeing")(function* (organisation, query) {
      const { today } = yield* clockOf(organisation)
      return Receivables.ageing(yield* unpaidOf(organisation, query, today), today)
    }),

    stalledDeals: operation("Analytics.stalledDeals")(function* (organisation, query) {
      const pipelines = yield* pipelinesOf(organisation, query.pipeline_id)
      const { now } = yield* clockOf(organisation)
      const [open, visits] = yield* Effect.all([
        deals.openOrClosedSince(organisation.id, now),
        deals.visits(organisation.id)
      ])
      const ids = new Set(pipelines.map((pipeline) => pipeline.id))
      const inScope = open.filter((deal) => deal.status_kind === "open" && ids.has(deal.pipeline_id))
      // Medians come from every pipeline's history: a stage id belongs to one pipeline only.
      return page(Stalled.stalledDeals(organisation.settings.pipelines, inScope, visits, now), query.limit)
    }),

    cashFlowForecast: operation("Analytics.cashFlowForecast")(function* (organisation, query) {
      const { now, today } = yield* clockOf(organisation)
      const [unpaid, accepted, open] = yield* Effect.all([
        invoices.unpaid(organisation.id, {}),
        quotes.acceptedNotInvoiced(organisation.id),
        deals.openOrClosedSince(organisation.id, now)
      ])
      return CashFlow.forecast({
        months: query.months,
        today,
        settings: organisation.settings,
        invoices: unpaid,
        quotes: accepted,
        deals: open
      })
    }),

    salesHealth: operation("Analytics.salesHealth")(function* (organisation, query) {
      const { now, today } = yield* clockOf(organisation)
      const [live, visits, unpaid, overdueTasks] = yield* Effect.all([
        deals.openOrClosedSince(organisation.id, new Date(Pipelines.since(now, query.days)).toISOString()),
        deals.visits(organisation.id),
        unpaidOf(organisation, {}, today),
        tasks.overdueCount(organisation.id, now)
      ])
      return Health.salesHealth({
        days: query.days,
        now,
        today,
        defaultCurrency: organisation.settings.default_currency,
        pipelines: organisation.settings.pipelines,
        deals: live,
        visits,
        unpaid,
        overdueTasks
      })
    })
  })
})

export const layer = Layer.effect(Analytics, make)
