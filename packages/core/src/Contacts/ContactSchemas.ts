import { z } from "zod"
import { CompanyId } from "../Companies/CompanyIds.js"
import { ArchivedQuery, Custom, EmailInput, PageQuery, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { ContactId } from "./ContactIds.js"

export * from "./ContactIds.js"

export const ContactStatus = z.enum(["lead", "prospect", "customer", "inactive"])

const text = z.string().max(500)

const fields = {
  first_name: text.nullable().optional(),
  last_name: text.nullable().optional(),
  email: EmailInput.nullable().optional(),
  phone: z.string().max(50).nullable().optional(),
  company_id: CompanyId.nullable().optional(),
  status: ContactStatus.optional(),
  source: text.nullable().optional(),
  custom: Custom.optional()
}

export const ContactPatch = z.strictObject(fields)

/**
 * An upsert keyed by address: the fields to set, and the address that names the contact (in a
 * batch item; `PUT /contacts/by-email/{email}` takes it from the path and refuses a different one).
 */
export const ContactUpsert = z.strictObject({
  ...fields,
  email: EmailInput.describe("the natural key: the live contact with this address is changed, else created")
})

export const ContactCreate = z
  .strictObject(fields)
  .refine((body) => [body.first_name, body.last_name, body.email].some((value) => value != null && value !== ""), {
    message: "one of first_name, last_name or email is required",
    path: ["first_name"]
  })

export const Contact = z.object({
  id: ContactId,
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  company_id: CompanyId.nullable(),
  status: ContactStatus,
  source: z.string().nullable(),
  custom: Custom,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Contact = z.infer<typeof Contact>
export const ContactPage = syncPageEnvelope(Contact, { archivable: true })

export const ContactListQuery = z.object({
  email: z.string().optional().describe("exact address, case-insensitive"),
  status: ContactStatus.optional(),
  q: z.string().max(200).optional().describe("case-insensitive substring of first name, last name, email or phone"),
  ...SyncQuery,
  ...ArchivedQuery,
  ...PageQuery
})
export type ContactListQuery = z.output<typeof ContactListQuery>
