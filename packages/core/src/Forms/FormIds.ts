import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a form submission: branded, so that no other kind of id (or plain string) is taken for one. */
export const SubmissionId = IdInput.brand<"SubmissionId">()
export type SubmissionId = z.output<typeof SubmissionId>

/** The id of a form of the organisation's settings: branded, so that no other kind of id (or plain string) is taken for one. */
export const FormId = IdInput.brand<"FormId">()
export type FormId = z.output<typeof FormId>
