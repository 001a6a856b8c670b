/** Rows of custom records and form counts, and their domain records. */
import type { Companies, Contacts, Deals, Forms, Organisation, Records } from "@crm/core"
import { customOf, iso } from "./rows.js"

type Timestamp = Date | string

export interface CustomRecordRow {
  readonly id: Records.RecordId
  readonly type_id: Records.RecordTypeId
  readonly type_key: string
  readonly title: string | null
  readonly owner_id: Organisation.UserId | null
  readonly custom: unknown
  readonly contact_id: Contacts.ContactId | null
  readonly company_id: Companies.CompanyId | null
  readonly deal_id: Deals.DealId | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

export const toCustomRecord = (row: CustomRecordRow): Records.CustomRecord => ({
  id: row.id,
  type_id: row.type_id,
  type_key: row.type_key,
  title: row.title,
  owner_id: row.owner_id,
  custom: customOf(row.custom),
  contact_id: row.contact_id,
  company_id: row.company_id,
  deal_id: row.deal_id,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface FormCountsRow {
  readonly total: string | number
  readonly recent: string | number
  readonly created: string | number
  readonly last_submitted_at: Timestamp | null
}

export const toFormCounts = (row: FormCountsRow): Omit<Forms.FormCounts, "form_id"> => ({
  total: Number(row.total),
  last_30_days: Number(row.recent),
  contacts_created: Number(row.created),
  last_submitted_at: row.last_submitted_at === null ? null : iso(row.last_submitted_at)
})
