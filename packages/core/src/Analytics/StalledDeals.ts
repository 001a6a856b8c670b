/**
 * Stalled deals: open deals that have been in their stage longer than deals usually stay there. "Usually"
 * is the median duration of the stage's completed visits over the organisation's whole history.
 */
import type { Deal, StageVisit } from "../Deals/DealSchemas.js"
import type { Pipeline } from "../Deals/PipelineSchemas.js"
import type { StalledDeal } from "./AnalyticsSchemas.js"

const DAY_MS = 86_400_000

/** The median of `values`: the middle one, or the mean of the two middle ones for an even count. */
export const median = (values: ReadonlyArray<number>): number | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((x, y) => x - y)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

/** Per stage id, the median duration in milliseconds of its completed visits (those with `left_at`). */
export const stageMedians = (visits: ReadonlyArray<StageVisit>): ReadonlyMap<string, number> => {
  const durations = new Map<string, Array<number>>()
  for (const visit of visits) {
    if (visit.left_at === null) continue
    const list = durations.get(visit.status_id) ?? []
    list.push(Date.parse(visit.left_at) - Date.parse(visit.entered_at))
    durations.set(visit.status_id, list)
  }
  const medians = new Map<string, number>()
  for (const [stageId, list] of durations) medians.set(stageId, median(list) as number)
  return medians
}

/** Days to one decimal, as the wire shows them. */
export const toDays = (ms: number): number => Math.round((ms / DAY_MS) * 10) / 10

/** When the deal entered its current stage: its open visit, else (no history kept) its last change. */
const enteredAt = (deal: Deal, openVisits: ReadonlyMap<string, StageVisit>): string =>
  openVisits.get(deal.id)?.entered_at ?? deal.updated_at

interface Candidate {
  readonly item: StalledDeal
  /** Time in stage over the median; `null` when the stage has no completed visit. */
  readonly ratio: number | null
  readonly inStageMs: number
}

/**
 * `deals` are live deals (only open ones are considered), `visits` every stage visit of the organisation.
 * Stalled deals (time in stage above the stage's median) come first, the most overdue relative to the
 * median first; then open deals in stages without any completed visit (`median_days: null`), longest in
 * stage first. Open deals at or under their stage's median are not listed.
 */
export const stalledDeals = (
  pipelines: ReadonlyArray<Pipeline>,
  deals: ReadonlyArray<Deal>,
  visits: ReadonlyArray<StageVisit>,
  now: string
): Array<StalledDeal> => {
  const medians = stageMedians(visits)
  const openVisits = new Map<string, StageVisit>()
  for (const visit of visits) if (visit.left_at === null) openVisits.set(visit.deal_id, visit)
  const stageNames = new Map<string, string>()
  for (const pipeline of pipelines) for (const stage of pipeline.stages) stageNames.set(stage.id, stage.name)
  const nowMs = Date.parse(now)

  const candidates: Array<Candidate> = []
  for (const deal of deals) {
    if (deal.status_kind !== "open") continue
    const inStageMs = Math.max(0, nowMs - Date.parse(enteredAt(deal, openVisits)))
    const medianMs = medians.get(deal.status_id)
    if (medianMs !== undefined && inStageMs <= medianMs) continue
    const item: StalledDeal = {
      deal_id: deal.id,
      title: deal.title,
      pipeline_id: deal.pipeline_id,
      stage_id: deal.status_id,
      stage_name: stageNames.get(deal.status_id) ?? "",
      days_in_stage: toDays(inStageMs),
      median_days: medianMs === undefined ? null : toDays(medianMs),
      value: deal.value,
      currency: deal.currency,
      owner_id: deal.owner_id,
      contact_id: deal.contact_id
    }
    // A zero median (visits left at once) makes any wait infinitely long relative to it.
    const ratio = medianMs === undefined ? null : medianMs === 0 ? Number.POSITIVE_INFINITY : inStageMs / medianMs
    candidates.push({ item, ratio, inStageMs })
  }
  return candidates
    .sort(
      (x, y) =>
        (x.ratio === null ? 1 : 0) - (y.ratio === null ? 1 : 0) ||
        (x.ratio !== null && y.ratio !== null && x.ratio !== y.ratio ? y.ratio - x.ratio : 0) ||
        y.inStageMs - x.inStageMs ||
        x.item.deal_id.localeCompare(y.item.deal_id)
    )
    .map((candidate) => candidate.item)
}

/** Open deals that are stalled by the definition above (those with a median only): for the health score. */
export const stalledCount = (deals: ReadonlyArray<Deal>, visits: ReadonlyArray<StageVisit>, now: string): number =>
  stalledDeals([], deals, visits, now).filter((item) => item.median_days !== null).length
