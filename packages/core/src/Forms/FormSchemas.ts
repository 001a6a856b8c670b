import { z } from "zod"
import { ContactId } from "../Contacts/ContactIds.js"
import { Timestamp } from "../Wire.js"
import { FormId, SubmissionId } from "./FormIds.js"

export * from "./FormIds.js"

export const VisitorId = z
  .string()
  .min(1)
  .max(200)
  .describe("the site's anonymous visitor id; later visits with it are attached to the submission's contact")

export const SubmissionCreate = z.strictObject({
  fields: z.record(z.string(), z.unknown()).describe("the answers by form field key"),
  visitor_id: VisitorId.optional()
})
export type SubmissionCreate = z.output<typeof SubmissionCreate>

export const Submission = z.object({
  id: SubmissionId,
  form_id: FormId,
  contact_id: ContactId,
  contact_created: z.boolean().describe("true when the submission created the contact, false when it linked one"),
  fields: z.record(z.string(), z.unknown()).describe("the accepted answers"),
  visitor_id: z.string().nullable(),
  created_at: Timestamp
})
export type Submission = z.infer<typeof Submission>

export const COUNT_WINDOW_DAYS = 30

export const FormCounts = z.object({
  form_id: FormId,
  total: z.number().int().describe("every submission of the form"),
  last_30_days: z.number().int().describe("submissions in the last 30 days (rolling, up to now)"),
  contacts_created: z.number().int().describe("submissions that created their contact rather than linking one"),
  last_submitted_at: Timestamp.nullable()
})
export type FormCounts = z.infer<typeof FormCounts>
