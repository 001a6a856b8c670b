/**
 * Per pipeline: how many live deals sit in each stage and their values per currency, plus the deals won
 * and lost in the last 30 days.
 */
import type { Deal } from "../Deals/DealSchemas.js"
import type { Pipeline } from "../Deals/PipelineSchemas.js"
import type { PipelineSummary } from "./AnalyticsSchemas.js"
import * as CurrencyTotals from "./CurrencyTotals.js"

export const RECENT_DAYS = 30
const DAY_MS = 86_400_000

/** `now − days × 24 h`, as an instant. */
export const since = (now: string, days: number): number => Date.parse(now) - days * DAY_MS

/** Closed (won or lost, as its current stage says) at or after `from` (epoch ms). */
export const closedSince = (deal: Deal, kind: "won" | "lost", from: number): boolean =>
  deal.status_kind === kind && deal.closed_at !== null && Date.parse(deal.closed_at) >= from

const closed = (deals: ReadonlyArray<Deal>) => ({
  count: deals.length,
  values: CurrencyTotals.toWire(
    CurrencyTotals.sumBy(
      deals,
      (deal) => deal.currency,
      (deal) => deal.value
    )
  )
})

/**
 * `deals` are the organisation's live deals (any stage); `pipelines` the ones to summarise, in the
 * settings' order. A deal whose stage is no longer in its pipeline's settings is in no stage row.
 */
export const summarise = (
  pipelines: ReadonlyArray<Pipeline>,
  deals: ReadonlyArray<Deal>,
  now: string
): PipelineSummary => {
  const from = since(now, RECENT_DAYS)
  return {
    pipelines: pipelines.map((pipeline) => {
      const own = deals.filter((deal) => deal.pipeline_id === pipeline.id)
      return {
        pipeline_id: pipeline.id,
        name: pipeline.name,
        stages: pipeline.stages.map((stage) => {
          const inStage = own.filter((deal) => deal.status_id === stage.id)
          return {
            stage_id: stage.id,
            name: stage.name,
            kind: stage.kind,
            count: inStage.length,
            values: closed(inStage).values
          }
        }),
        won_last_30_days: closed(own.filter((deal) => closedSince(deal, "won", from))),
        lost_last_30_days: closed(own.filter((deal) => closedSince(deal, "lost", from)))
      }
    })
  }
}
