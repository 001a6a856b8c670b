import { Surveys } from "@crm/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { SurveyScale } = Surveys
const kind = fc.constantFrom("nps" as const, "csat" as const, "ces" as const)

describe("SurveyScale", () => {
  it("accepts exactly the whole scores of the kind's scale, in the answer schema too", () => {
    fc.assert(
      fc.property(
        kind,
        fc.oneof(fc.integer({ min: -3, max: 13 }), fc.double({ min: -3, max: 13, noNaN: true })),
        (k, score) => {
          const { min, max } = SurveyScale.SCALES[k]
          const expected = Number.isInteger(score) && score >= min && score <= max
          expect(SurveyScale.inScale(k, score)).toBe(expected)
          const parsed = Surveys.SurveyAnswer.safeParse({
            survey_id: crypto.randomUUID(),
            kind: k,
            score,
            contact_id: crypto.randomUUID()
          })
          expect(parsed.success).toBe(expected)
        }
      )
    )
  })
})
