import * as Context from "effect/Context"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { DealId } from "../Deals/DealIds.js"
import type { RecordStore } from "../Resource.js"
import type { SurveyId } from "./SurveyIds.js"
import type { SurveyKind, SurveyResponse } from "./SurveySchemas.js"

export interface SurveyResponseFilter {
  readonly surveyId?: SurveyId
  readonly kind?: SurveyKind
  readonly contactId?: ContactId
  readonly dealId?: DealId
}

/** The survey answers of one organisation; an answer, once given, is never changed. */
export class SurveyResponseRepository extends Context.Tag("@crm/core/SurveyResponseRepository")<
  SurveyResponseRepository,
  Pick<RecordStore<SurveyResponse, SurveyResponseFilter>, "insert" | "get" | "list">
>() {}
