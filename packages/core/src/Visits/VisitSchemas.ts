import { z } from "zod"
import { ContactId } from "../Contacts/ContactIds.js"
import { VisitorId } from "../Forms/FormSchemas.js"
import { Timestamp, TimestampInput } from "../Wire.js"
import { VisitId } from "./VisitIds.js"

export * from "./VisitIds.js"

export const VisitCreate = z.strictObject({
  url: z.url().max(2000).describe("the page visited"),
  referrer: z.string().max(2000).nullable().optional(),
  visitor_id: VisitorId.optional(),
  contact_id: ContactId.optional().describe("a live contact of the organisation"),
  occurred_at: TimestampInput.optional().describe("when the page was viewed; default now")
})
export type VisitCreate = z.output<typeof VisitCreate>

export const Visit = z.object({
  id: VisitId,
  url: z.string(),
  referrer: z.string().nullable(),
  visitor_id: z.string().nullable(),
  contact_id: ContactId.nullable().describe(
    "the contact sent, else the one this visitor id was last linked to (by a visit or a form submission)"
  ),
  occurred_at: Timestamp,
  created_at: Timestamp
})
export type Visit = z.infer<typeof Visit>
