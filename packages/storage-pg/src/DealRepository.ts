import { Deals } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { count, type DealRow, type StageVisitRow, toDeal, toStageVisit } from "./internal/rows.js"
import { containsPattern, json, textArray } from "./internal/values.js"

const deals: LiveRecords.LiveTable<DealRow, Deals.Deal> = {
  table: "deals",
  columns: `id, title, value, currency, pipeline_id, status_id, status_kind, contact_id, company_id, owner_id,
    expected_close_date, lost_reason, closed_at, custom, created_at, updated_at`,
  readAs: { expected_close_date: "expected_close_date::text" },
  toRecord: toDeal,
  repository: "DealRepository"
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof Deals.DealRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, deals)

  const conditions = (filter: Deals.DealFilter) => [
    ...(filter.statusKind !== undefined ? [sql`status_kind = ${filter.statusKind}`] : []),
    ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
    ...(filter.companyId !== undefined ? [sql`company_id = ${filter.companyId}::uuid`] : []),
    ...(filter.pipelineId !== undefined ? [sql`pipeline_id = ${filter.pipelineId}::uuid`] : []),
    ...(filter.ownerId !== undefined ? [sql`owner_id = ${filter.ownerId}::uuid`] : []),
    ...(filter.q !== undefined ? [sql`title ILIKE ${containsPattern(filter.q)} ESCAPE '\\'`] : []),
    // A NULL date compares as unknown, so a deal without an expected close date never matches.
    ...(filter.closeBefore !== undefined ? [sql`expected_close_date < ${filter.closeBefore}::date`] : [])
  ]

  return Deals.DealRepository.of({
    insert: (organisationId, deal) =>
      live.insert(
        organisationId,
        sql`${deal.id}::uuid, ${deal.title}, ${deal.value}::numeric, ${deal.currency}, ${deal.pipeline_id}::uuid,
          ${deal.status_id}::uuid, ${deal.status_kind}, ${deal.contact_id}::uuid, ${deal.company_id}::uuid,
          ${deal.owner_id}::uuid, ${deal.expected_close_date}::date, ${deal.lost_reason},
          ${deal.closed_at}::timestamptz, ${json(deal.custom)}::jsonb,
          ${deal.created_at}::timestamptz, ${deal.updated_at}::timestamptz`
      ),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, deal) =>
      live.update(
        organisationId,
        deal.id,
        sql`title = ${deal.title}, value = ${deal.value}::numeric, currency = ${deal.currency},
          pipeline_id = ${deal.pipeline_id}::uuid, status_id = ${deal.status_id}::uuid,
          status_kind = ${deal.status_kind}, contact_id = ${deal.contact_id}::uuid,
          company_id = ${deal.company_id}::uuid, owner_id = ${deal.owner_id}::uuid,
          expected_close_date = ${deal.expected_close_date}::date, lost_reason = ${deal.lost_reason},
          closed_at = ${deal.closed_at}::timestamptz, custom = ${json(deal.custom)}::jsonb,
          updated_at = ${deal.updated_at}::timestamptz`
      ),
    archive: live.archive,
    list: (organisationId, filter, page) =>
      filter.order === "updated"
        ? sql<DealRow>`SELECT ${live.selected} FROM deals
            WHERE ${sql.and([live.whereLive(organisationId), ...conditions(filter)])}
            ORDER BY updated_at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
            Effect.map((rows) => rows.map(toDeal)),
            orStorageError("DealRepository.list")
          )
        : live.list(organisationId, {}, page, conditions(filter)),
    enterStage: (organisationId, visit) =>
      Effect.zipRight(
        sql`UPDATE deal_stage_visits SET left_at = ${visit.entered_at}::timestamptz
          WHERE organisation_id = ${organisationId}::uuid AND deal_id = ${visit.deal_id}::uuid AND left_at IS NULL`,
        sql`INSERT INTO deal_stage_visits
            (organisation_id, deal_id, pipeline_id, from_status_id, status_id, status_kind, entered_at, left_at, key_id)
          VALUES (${organisationId}::uuid, ${visit.deal_id}::uuid, ${visit.pipeline_id}::uuid,
            ${visit.from_status_id}::uuid, ${visit.status_id}::uuid, ${visit.status_kind},
            ${visit.entered_at}::timestamptz, ${visit.left_at}::timestamptz, ${visit.key_id}::uuid)`
      ).pipe(Effect.asVoid, orStorageError("DealRepository.enterStage")),
    history: (organisationId, dealId) =>
      sql<StageVisitRow>`SELECT deal_id, pipeline_id, from_status_id, status_id, status_kind, entered_at, left_at, key_id
        FROM deal_stage_visits WHERE organisation_id = ${organisationId}::uuid AND deal_id = ${dealId}::uuid
        ORDER BY entered_at, id`.pipe(
        Effect.map((rows) => rows.map(toStageVisit)),
        orStorageError("DealRepository.history")
      ),
    countByStage: (organisationId, stageIds) =>
      sql<{ status_id: string; n: string }>`SELECT status_id, count(*) AS n FROM deals
        WHERE ${live.whereLive(organisationId)} AND status_id = ANY(${textArray(stageIds)}::uuid[])
        GROUP BY status_id`.pipe(
        Effect.map((rows) => rows.map((row) => ({ status_id: row.status_id, deals: count(row.n) }))),
        orStorageError("DealRepository.countByStage")
      ),
    visits: (organisationId) =>
      sql<StageVisitRow>`SELECT deal_id, pipeline_id, from_status_id, status_id, status_kind, entered_at, left_at, key_id
        FROM deal_stage_visits WHERE organisation_id = ${organisationId}::uuid`.pipe(
        Effect.map((rows) => rows.map(toStageVisit)),
        orStorageError("DealRepository.visits")
      ),
    openOrClosedSince: (organisationId, closedSince) =>
      sql<DealRow>`SELECT ${live.selected} FROM deals WHERE ${sql.and([
        live.whereLive(organisationId),
        ...(closedSince === null ? [] : [sql`(status_kind = 'open' OR closed_at >= ${closedSince}::timestamptz)`])
      ])}`.pipe(
        Effect.map((rows) => rows.map(toDeal)),
        orStorageError("DealRepository.openOrClosedSince")
      )
  })
})

export const layer = Layer.effect(Deals.DealRepository, make)
