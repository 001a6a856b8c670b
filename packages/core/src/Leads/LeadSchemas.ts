import { z } from "zod"
import { ContactId } from "../Contacts/ContactIds.js"
import { FormId } from "../Forms/FormIds.js"
import { EmailInput } from "../Wire.js"

/** A lead as an external provider (an ad network's lead form, a marketplace) delivers it. */
export const LeadInput = z
  .strictObject({
    provider: z.string().min(1).max(100).describe("who delivered the lead, e.g. facebook"),
    external_id: z.string().min(1).max(200).describe("the provider's id of the lead; reported as lead_id"),
    email: EmailInput.optional(),
    first_name: z.string().max(500).optional(),
    last_name: z.string().max(500).optional(),
    phone: z.string().max(50).optional(),
    custom: z.record(z.string(), z.unknown()).optional()
  })
  .refine(
    (lead) => [lead.first_name, lead.last_name, lead.email].some((value) => value !== undefined && value !== ""),
    {
      message: "one of first_name, last_name or email is required",
      path: ["email"]
    }
  )
export type LeadInput = z.output<typeof LeadInput>

/** Exactly the payload of `lead.received`. */
export const LeadReceived = z.object({
  provider: z.string(),
  lead_id: z.string(),
  form_id: FormId.nullable(),
  contact_id: ContactId,
  created: z.boolean()
})
export type LeadReceived = z.infer<typeof LeadReceived>
