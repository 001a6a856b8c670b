import { Surveys } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { type SurveyResponseRow, toSurveyResponse } from "./internal/serviceRows.js"

const responses: LiveRecords.LiveTable<SurveyResponseRow, Surveys.SurveyResponse> = {
  table: "survey_responses",
  columns: "id, survey_id, kind, score, comment, contact_id, deal_id, created_at, updated_at",
  toRecord: toSurveyResponse,
  repository: "SurveyResponseRepository"
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof Surveys.SurveyResponseRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, responses)

  return Surveys.SurveyResponseRepository.of({
    insert: (organisationId, response) =>
      live.insert(
        organisationId,
        sql`${response.id}::uuid, ${response.survey_id}::uuid, ${response.kind}, ${response.score}::integer,
          ${response.comment}, ${response.contact_id}::uuid, ${response.deal_id}::uuid,
          ${response.created_at}::timestamptz, ${response.updated_at}::timestamptz`
      ),
    get: live.get,
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.surveyId !== undefined ? [sql`survey_id = ${filter.surveyId}::uuid`] : []),
        ...(filter.kind !== undefined ? [sql`kind = ${filter.kind}`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.dealId !== undefined ? [sql`deal_id = ${filter.dealId}::uuid`] : [])
      ])
  })
})

export const layer = Layer.effect(Surveys.SurveyResponseRepository, make)
