import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ContactId } from "../Contacts/ContactIds.js"
import type { DealId } from "../Deals/DealIds.js"
import type { StorageError } from "../Errors.js"
import type { OrganisationId } from "../Organisation.js"
import type { Page } from "../Wire.js"
import type { SurveyResponseId } from "./SurveyIds.js"
import type { SurveyKind, SurveyResponse } from "./SurveySchemas.js"

export interface SurveyResponseFilter {
  readonly surveyId?: string
  readonly kind?: SurveyKind
  readonly contactId?: ContactId
  readonly dealId?: DealId
}

/** The survey answers of one organisation; an answer, once given, is never changed. */
export class SurveyResponseRepository extends Context.Tag("@crm/core/SurveyResponseRepository")<
  SurveyResponseRepository,
  {
    readonly insert: (organisationId: OrganisationId, response: SurveyResponse) => Effect.Effect<void, StorageError>
    readonly get: (
      organisationId: OrganisationId,
      id: SurveyResponseId
    ) => Effect.Effect<Option.Option<SurveyResponse>, StorageError>
    /** Newest first, ties by id; at most `limit + 1` rows. */
    readonly list: (
      organisationId: OrganisationId,
      filter: SurveyResponseFilter,
      page: Page
    ) => Effect.Effect<ReadonlyArray<SurveyResponse>, StorageError>
  }
>() {}
