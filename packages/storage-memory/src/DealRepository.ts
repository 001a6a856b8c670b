/** Deals in memory: rows per organisation, and each deal's stage visits beside them. */
import { Deals } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as LiveRecords from "./internal/liveRecords.js"
import { copy, copyOut, instant, read, type Store, type Tenant, tenant, withTenant, write } from "./internal/Store.js"

const visitsOf = (t: Tenant, dealId: string): ReadonlyArray<Deals.StageVisit> =>
  Option.getOrElse(HashMap.get(t.dealVisits, dealId), () => [])

export const make = (store: Store) => {
  const live = LiveRecords.make<Deals.Deal>(store, {
    table: "deals",
    noun: "deal"
  })
  return Deals.DealRepository.of({
    insert: live.insert,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    archive: live.archive,
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (deal) =>
          (filter.statusKind === undefined || deal.status_kind === filter.statusKind) &&
          (filter.contactId === undefined || deal.contact_id === filter.contactId) &&
          (filter.companyId === undefined || deal.company_id === filter.companyId) &&
          (filter.pipelineId === undefined || deal.pipeline_id === filter.pipelineId)
      ),
    enterStage: (organisationId, input) =>
      Effect.flatMap(copy(input), (visit) =>
        write(store, (state) => {
          const t = tenant(state, organisationId)
          const closed = visitsOf(t, visit.deal_id).map((previous) =>
            previous.left_at === null ? { ...previous, left_at: visit.entered_at } : previous
          )
          const dealVisits = HashMap.set(t.dealVisits, visit.deal_id, [...closed, visit])
          return [Either.right<void>(undefined), withTenant(state, organisationId, { ...t, dealVisits })]
        })
      ),
    history: (organisationId, dealId) =>
      read(store, (state) =>
        // A stable sort: visits entered at the same instant stay in the order they were recorded.
        [...visitsOf(tenant(state, organisationId), dealId)]
          .sort((x, y) => instant(x.entered_at) - instant(y.entered_at))
          .map(copyOut)
      )
  })
}
