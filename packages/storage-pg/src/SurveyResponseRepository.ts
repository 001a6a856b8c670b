import { Surveys } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { surveyResponseTable, toSurveyResponse } from "./internal/serviceRows.js"

const responses = LiveRecords.liveTable({
  table: surveyResponseTable,
  toRecord: toSurveyResponse,
  repository: "SurveyResponseRepository"
})

export const make: Effect.Effect<
  Context.Tag.Service<typeof Surveys.SurveyResponseRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, responses)

  return Surveys.SurveyResponseRepository.of({
    insert: (organisationId, response) => live.insert(organisationId, response),
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
