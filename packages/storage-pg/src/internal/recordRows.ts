/** The custom record, form submission and visit tables, each declared once, their records, and the form counts. */
import {
  type Companies,
  type Contacts,
  type Deals,
  Forms,
  type Organisation,
  type Records,
  type Visits
} from "@crm/core"
import { boolean, custom, json, nullable, type RowOfTable, table, text, timestamp, uuid } from "./columns.js"
import { iso } from "./storedValues.js"

export const customRecordTable = table("custom_records", {
  id: uuid<Records.RecordId>(),
  type_id: uuid<Records.RecordTypeId>(),
  type_key: text(),
  title: nullable(text()),
  owner_id: nullable(uuid<Organisation.UserId>()),
  custom: custom(),
  contact_id: nullable(uuid<Contacts.ContactId>()),
  company_id: nullable(uuid<Companies.CompanyId>()),
  deal_id: nullable(uuid<Deals.DealId>()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type CustomRecordRow = RowOfTable<typeof customRecordTable>
export const toCustomRecord = (row: CustomRecordRow): Records.CustomRecord => customRecordTable.read(row)

/** Written once, never read back whole. */
export const formSubmissionTable = table("form_submissions", {
  id: uuid<Forms.SubmissionId>(),
  form_id: uuid<Forms.FormId>(),
  contact_id: uuid<Contacts.ContactId>(),
  contact_created: boolean(),
  fields: json(Forms.Submission.shape.fields),
  visitor_id: nullable(text()),
  created_at: timestamp()
})

/** Written once, never read back whole. */
export const visitTable = table("visits", {
  id: uuid<Visits.VisitId>(),
  url: text(),
  referrer: nullable(text()),
  visitor_id: nullable(text()),
  contact_id: nullable(uuid<Contacts.ContactId>()),
  occurred_at: timestamp(),
  created_at: timestamp()
})

/** Counts, not a table's columns. */
export interface FormCountsRow {
  readonly total: string | number
  readonly recent: string | number
  readonly created: string | number
  readonly last_submitted_at: Date | string | null
}

export const toFormCounts = (row: FormCountsRow): Omit<Forms.FormCounts, "form_id"> => ({
  total: Number(row.total),
  last_30_days: Number(row.recent),
  contacts_created: Number(row.created),
  last_submitted_at: row.last_submitted_at === null ? null : iso(row.last_submitted_at)
})
