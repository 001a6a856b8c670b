/** Deals in memory: rows per organisation, and each deal's stage visits beside them. */
import { Deals } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as LiveRecords from "./internal/liveRecords.js"
import {
  containsFolded,
  copy,
  copyOut,
  instant,
  read,
  type Store,
  slot,
  type Tenant,
  tenant,
  withTenant,
  write
} from "./internal/Store.js"

const deals = LiveRecords.table<Deals.Deal>("deals")
/** Each deal's stage visits, in the order they were recorded. */
const dealVisits = slot("deals.stage_visits", HashMap.empty<string, ReadonlyArray<Deals.StageVisit>>())

const visitsOf = (t: Tenant, dealId: string): ReadonlyArray<Deals.StageVisit> =>
  Option.getOrElse(HashMap.get(dealVisits.get(t), dealId), () => [])

/** Most recently changed first; equal times by id descending, so pages are stable. */
const recentlyChanged = (a: Deals.Deal, b: Deals.Deal): number => {
  const byTime = instant(b.updated_at) - instant(a.updated_at)
  if (byTime !== 0) return byTime
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

const matching = (filter: Deals.DealFilter) => {
  const title = filter.q === undefined ? undefined : containsFolded(filter.q)
  const { closeBefore } = filter
  return (deal: Deals.Deal): boolean =>
    (filter.statusKind === undefined || deal.status_kind === filter.statusKind) &&
    (filter.contactId === undefined || deal.contact_id === filter.contactId) &&
    (filter.companyId === undefined || deal.company_id === filter.companyId) &&
    (filter.pipelineId === undefined || deal.pipeline_id === filter.pipelineId) &&
    (filter.ownerId === undefined || deal.owner_id === filter.ownerId) &&
    (title === undefined || title(deal.title)) &&
    // Dates compare as text (YYYY-MM-DD); a deal without an expected close date is never before anything.
    (closeBefore === undefined || (deal.expected_close_date !== null && deal.expected_close_date < closeBefore))
}

export const make = (store: Store): Context.Tag.Service<typeof Deals.DealRepository> => {
  const live = LiveRecords.make<Deals.Deal>(store, {
    table: deals,
    noun: "deal"
  })
  return Deals.DealRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    archive: live.archive,
    list: (organisationId, filter, page) =>
      filter.order === "updated"
        ? Effect.map(live.select(organisationId, matching(filter), recentlyChanged), (rows) =>
            rows.slice(page.offset, page.offset + page.limit + 1)
          )
        : live.list(organisationId, {}, page, matching(filter)),
    countByStage: (organisationId, stageIds) => {
      const wanted = new Set(stageIds)
      return Effect.map(
        live.select(
          organisationId,
          (deal) => wanted.has(deal.status_id),
          () => 0
        ),
        (deals) => {
          const counts = new Map<string, number>()
          for (const deal of deals) counts.set(deal.status_id, (counts.get(deal.status_id) ?? 0) + 1)
          return [...counts].map(([status_id, n]) => ({ status_id, deals: n }))
        }
      )
    },
    enterStage: (organisationId, input) =>
      Effect.flatMap(copy(input), (visit) =>
        write(store, (state) => {
          const t = tenant(state, organisationId)
          const closed = visitsOf(t, visit.deal_id).map((previous) =>
            previous.left_at === null ? { ...previous, left_at: visit.entered_at } : previous
          )
          const next = dealVisits.update(t, (visits) => HashMap.set(visits, visit.deal_id, [...closed, visit]))
          return [Either.right<void>(undefined), withTenant(state, organisationId, next)]
        })
      ),
    history: (organisationId, dealId) =>
      read(store, (state) =>
        // A stable sort: visits entered at the same instant stay in the order they were recorded.
        [...visitsOf(tenant(state, organisationId), dealId)]
          .sort((x, y) => instant(x.entered_at) - instant(y.entered_at))
          .map(copyOut)
      ),
    visits: (organisationId) =>
      read(store, (state) => [...HashMap.values(dealVisits.get(tenant(state, organisationId)))].flat().map(copyOut)),
    openOrClosedSince: (organisationId, closedSince) =>
      live.select(
        organisationId,
        (deal) =>
          closedSince === null ||
          deal.status_kind === "open" ||
          (deal.closed_at !== null && instant(deal.closed_at) >= instant(closedSince)),
        (x, y) => x.id.localeCompare(y.id)
      )
  })
}
