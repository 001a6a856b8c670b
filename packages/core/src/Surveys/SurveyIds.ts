import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a survey response: branded, so that no other kind of id (or plain string) is taken for one. */
export const SurveyResponseId = IdInput.brand<"SurveyResponseId">()
export type SurveyResponseId = z.output<typeof SurveyResponseId>

/** The id of a survey (named by the client that records its answers): branded, so that no other kind of id (or plain string) is taken for one. */
export const SurveyId = IdInput.brand<"SurveyId">()
export type SurveyId = z.output<typeof SurveyId>
