/** Surveys: NPS, CSAT and CES answers of contacts, optionally about a deal. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { DealRepository } from "./Deals/DealRepository.js"
import type { NotFound, StorageError, ValidationFailed } from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { nowIso, orNotFound, requireLink } from "./internal/records.js"
import type { Organisation } from "./Organisation.js"
import { SurveyResponseId } from "./Surveys/SurveyIds.js"
import { SurveyResponseRepository } from "./Surveys/SurveyResponseRepository.js"
import type { SurveyAnswer, SurveyResponse, SurveyResponseListQuery } from "./Surveys/SurveySchemas.js"
import { Transaction } from "./Transaction.js"
import { type PageResult, toPage } from "./Wire.js"

export * from "./Surveys/SurveyResponseRepository.js"
export * as SurveyScale from "./Surveys/SurveyScale.js"
export * from "./Surveys/SurveySchemas.js"

export class Surveys extends Context.Tag("@crm/core/Surveys")<
  Surveys,
  {
    /** Records one answer; emits `survey.answered`. */
    readonly answer: (
      organisation: Organisation,
      input: z.output<typeof SurveyAnswer>
    ) => Effect.Effect<SurveyResponse, ValidationFailed | StorageError>
    readonly get: (
      organisation: Organisation,
      id: SurveyResponseId
    ) => Effect.Effect<SurveyResponse, NotFound | StorageError>
    readonly list: (
      organisation: Organisation,
      query: SurveyResponseListQuery
    ) => Effect.Effect<PageResult<SurveyResponse>, StorageError>
  }
>() {}

const ANSWERED_FIELDS = ["survey_id", "response_id", "kind", "score", "comment", "contact_id", "deal_id"] as const

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* SurveyResponseRepository
  const contacts = yield* ContactRepository
  const deals = yield* DealRepository
  const events = yield* EventLog
  const tx = yield* Transaction

  return Surveys.of({
    answer: operation("Surveys.answer")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          yield* requireLink("contact_id", input.contact_id, (id) => contacts.get(organisation.id, id))
          yield* requireLink("deal_id", input.deal_id, (id) => deals.get(organisation.id, id))
          const now = yield* nowIso
          const response: SurveyResponse = {
            id: brand(SurveyResponseId, ids.next()),
            survey_id: input.survey_id,
            kind: input.kind,
            score: input.score,
            comment: input.comment ?? null,
            contact_id: input.contact_id,
            deal_id: input.deal_id ?? null,
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, response)
          yield* events.append(
            organisation.id,
            [{ event: "survey.answered", data: pick({ ...response, response_id: response.id }, ANSWERED_FIELDS) }],
            now
          )
          return response
        })
      )
    }),
    get: (organisation, id) => repo.get(organisation.id, id).pipe(orNotFound("survey response")),
    list: (organisation, query) =>
      repo
        .list(
          organisation.id,
          {
            ...(query.survey_id !== undefined ? { surveyId: query.survey_id } : {}),
            ...(query.kind !== undefined ? { kind: query.kind } : {}),
            ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
            ...(query.deal_id !== undefined ? { dealId: query.deal_id } : {})
          },
          query
        )
        .pipe(Effect.map((rows) => toPage(rows, query)))
  })
})

export const layer = Layer.effect(Surveys, make)
