import { z } from "zod"
import { CompanyId } from "../Companies/CompanyIds.js"
import { ContactId } from "../Contacts/ContactIds.js"
import { DealId } from "../Deals/DealIds.js"
import { UserId } from "../Organisation/UserIds.js"
import { PageQuery, SyncQuery, syncPageEnvelope, Timestamp } from "../Wire.js"
import { RecordId, RecordTypeId } from "./RecordIds.js"

export * from "./RecordIds.js"

// Ids compare as stored (lower case) on every store: PostgreSQL's uuid type ignores case, a map key does not.

const fields = {
  title: z.string().min(1).max(500).nullable().optional(),
  owner_id: UserId.nullable().optional().describe("the user who owns the record"),
  custom: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "values by field key of the record type: keys the type does not define are dropped and listed in ignored_fields; on PATCH each key sent replaces that value and null clears it"
    ),
  contact_id: ContactId.nullable().optional().describe("a live contact of the organisation"),
  company_id: CompanyId.nullable().optional().describe("a live company of the organisation"),
  deal_id: DealId.nullable().optional().describe("a live deal of the organisation")
}

export const RecordCreate = z.strictObject({
  type: z.string().min(1).max(63).describe("the key of a record type defined in the organisation settings"),
  ...fields
})

export const RecordPatch = z.strictObject(fields)

export const CustomRecord = z.object({
  id: RecordId,
  type_id: RecordTypeId,
  type_key: z.string(),
  title: z.string().nullable(),
  owner_id: UserId.nullable(),
  custom: z
    .record(z.string(), z.unknown())
    .describe("the stored values, plus every formula and rollup field computed (null when it cannot be)"),
  contact_id: ContactId.nullable(),
  company_id: CompanyId.nullable(),
  deal_id: DealId.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type CustomRecord = z.infer<typeof CustomRecord>

/** What create and PATCH answer: the record and the `custom` keys that were dropped. */
export const WrittenRecord = CustomRecord.extend({
  ignored_fields: z.array(z.string()).describe("keys of custom that the record type does not define (not stored)")
})
export type WrittenRecord = z.infer<typeof WrittenRecord>

export const RecordPage = syncPageEnvelope(CustomRecord, { archivable: false })

export const RecordListQuery = z.object({
  type: z.string().min(1).max(63).optional().describe("a record type key"),
  contact_id: ContactId.optional(),
  company_id: CompanyId.optional(),
  deal_id: DealId.optional(),
  q: z.string().max(200).optional().describe("case-insensitive substring of the title"),
  ...SyncQuery,
  ...PageQuery
})
export type RecordListQuery = z.output<typeof RecordListQuery>
