/** The answer scale of each survey kind, as data: a score outside its kind's scale is refused. */
import { z } from "zod"

export const SurveyKind = z.enum(["nps", "csat", "ces"])
export type SurveyKind = z.infer<typeof SurveyKind>

export const SCALES: { readonly [K in SurveyKind]: { readonly min: number; readonly max: number } } = {
  // Net Promoter Score: how likely to recommend, 0 to 10.
  nps: { min: 0, max: 10 },
  // Customer satisfaction, 1 (very unsatisfied) to 5.
  csat: { min: 1, max: 5 },
  // Customer effort, 1 (very easy) to 7.
  ces: { min: 1, max: 7 }
}

export const inScale = (kind: SurveyKind, score: number): boolean =>
  Number.isInteger(score) && score >= SCALES[kind].min && score <= SCALES[kind].max
