import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a survey response: branded, so that no other kind of id (or plain string) is taken for one. */
export const SurveyResponseId = IdInput.brand<"SurveyResponseId">()
export type SurveyResponseId = z.output<typeof SurveyResponseId>
