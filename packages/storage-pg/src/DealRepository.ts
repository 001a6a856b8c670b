import { Deals } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { type DealRow, dealTable, type StageVisitRow, stageVisitTable, toDeal, toStageVisit } from "./internal/rows.js"
import { count } from "./internal/storedValues.js"
import { containsPattern, textArray } from "./internal/values.js"

const deals = LiveRecords.liveTable({ table: dealTable, toRecord: toDeal, repository: "DealRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Deals.DealRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, deals)
  const visits = sql.literal(stageVisitTable.selected)

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
    insert: (organisationId, deal) => live.insert(organisationId, deal),
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, deal) => live.update(organisationId, deal.id, deal),
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
        sql`INSERT INTO deal_stage_visits ${stageVisitTable.insert(sql, visit, {
          organisation_id: sql`${organisationId}::uuid`
        })}`
      ).pipe(Effect.asVoid, orStorageError("DealRepository.enterStage")),
    history: (organisationId, dealId) =>
      sql<StageVisitRow>`SELECT ${visits}
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
      sql<StageVisitRow>`SELECT ${visits} FROM deal_stage_visits WHERE organisation_id = ${organisationId}::uuid`.pipe(
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
