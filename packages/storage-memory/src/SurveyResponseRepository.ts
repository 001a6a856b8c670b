/** Survey answers in memory: rows per organisation, through the shared live-record table. */
import { Surveys } from "@crm/core"
import type * as Context from "effect/Context"
import * as LiveRecords from "./internal/liveRecords.js"
import type { Store } from "./internal/Store.js"

export const surveyResponses = LiveRecords.table<Surveys.SurveyResponse>("survey_responses")

export const make = (store: Store): Context.Tag.Service<typeof Surveys.SurveyResponseRepository> => {
  const live = LiveRecords.make<Surveys.SurveyResponse>(store, { table: surveyResponses, noun: "survey response" })
  return Surveys.SurveyResponseRepository.of({
    insert: live.insert,
    get: live.get,
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (response) =>
          (filter.surveyId === undefined || response.survey_id === filter.surveyId) &&
          (filter.kind === undefined || response.kind === filter.kind) &&
          (filter.contactId === undefined || response.contact_id === filter.contactId) &&
          (filter.dealId === undefined || response.deal_id === filter.dealId)
      )
  })
}
