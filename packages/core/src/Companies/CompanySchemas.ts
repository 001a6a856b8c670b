import { z } from "zod"
import { ArchivedQuery, Custom, EmailInput, PageQuery, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { CompanyId } from "./CompanyIds.js"

export * from "./CompanyIds.js"

const text = z.string().max(500)

const fields = {
  name: z.string().min(1).max(500),
  domain: text.nullable().optional(),
  email: EmailInput.nullable().optional(),
  vat_number: z.string().max(50).nullable().optional(),
  city: text.nullable().optional(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 code such as CZ")
    .transform((code) => code.toUpperCase())
    .nullable()
    .optional(),
  custom: Custom.optional()
}

export const CompanyCreate = z.strictObject(fields)
export const CompanyPatch = z.strictObject({ ...fields, name: fields.name.optional() })

/**
 * An upsert keyed by domain: the fields to set, and the domain that names the company (compared
 * case-insensitively; in a batch item; `PUT /companies/by-domain/{domain}` takes it from the path).
 * `name` is required only when the upsert creates the company.
 */
export const CompanyUpsert = z.strictObject({
  ...fields,
  name: fields.name.optional(),
  domain: z
    .string()
    .min(1)
    .max(500)
    .describe("the natural key: the oldest live company with this domain is changed, else one is created")
})

export const Company = z.object({
  id: CompanyId,
  name: z.string(),
  domain: z.string().nullable(),
  email: z.string().nullable(),
  vat_number: z.string().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  custom: Custom,
  created_at: Timestamp,
  updated_at: Timestamp
})
export type Company = z.infer<typeof Company>
export const CompanyPage = syncPageEnvelope(Company, { archivable: true })

export const CompanyListQuery = z.object({
  q: z.string().max(200).optional().describe("case-insensitive substring of name, domain or email"),
  ...SyncQuery,
  ...ArchivedQuery,
  ...PageQuery
})
export type CompanyListQuery = z.output<typeof CompanyListQuery>
