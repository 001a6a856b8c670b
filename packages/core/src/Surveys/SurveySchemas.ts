import { z } from "zod"
import { ContactId } from "../Contacts/ContactIds.js"
import { DealId } from "../Deals/DealIds.js"
import { PageQuery, pageEnvelope, Timestamp } from "../Wire.js"
import { SurveyId, SurveyResponseId } from "./SurveyIds.js"
import { inScale, SCALES, SurveyKind } from "./SurveyScale.js"

export * from "./SurveyIds.js"
export { SurveyKind } from "./SurveyScale.js"

export const SurveyAnswer = z
  .strictObject({
    survey_id: SurveyId.describe("the survey answered"),
    kind: SurveyKind,
    score: z
      .number()
      .int()
      .describe(
        `on the kind's scale: ${Object.entries(SCALES)
          .map(([kind, { min, max }]) => `${kind} ${min}-${max}`)
          .join(", ")}`
      ),
    comment: z.string().max(10_000).nullable().optional(),
    contact_id: ContactId.describe("a live contact of the organisation: who answered"),
    deal_id: DealId.nullable().optional().describe("a live deal of the organisation the answer is about")
  })
  .refine((answer) => inScale(answer.kind, answer.score), {
    message: "outside the scale of the survey kind",
    path: ["score"]
  })

export const SurveyResponse = z.object({
  id: SurveyResponseId,
  survey_id: SurveyId,
  kind: SurveyKind,
  score: z.number().int(),
  comment: z.string().nullable(),
  contact_id: ContactId,
  deal_id: DealId.nullable(),
  created_at: Timestamp.describe("when the answer was recorded"),
  updated_at: Timestamp
})
export type SurveyResponse = z.infer<typeof SurveyResponse>
export const SurveyResponsePage = pageEnvelope(SurveyResponse)

export const SurveyResponseListQuery = z.object({
  survey_id: SurveyId.optional(),
  kind: SurveyKind.optional(),
  contact_id: ContactId.optional(),
  deal_id: DealId.optional(),
  ...PageQuery
})
export type SurveyResponseListQuery = z.output<typeof SurveyResponseListQuery>
