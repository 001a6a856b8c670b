import { statements } from "../internal/statements.js"

/**
 * The archived rows of the lists that take `include_archived` (contacts, companies, deals, tasks),
 * in list order: a filtered list of such a list reads its live matches by the filter's index (live
 * rows only) and its archived rows by this one, at most `liveRecords.FEW` of each, instead of
 * walking every row when the filter matches little (issue 38). Archived rows are few in most
 * organisations, so these indexes are small.
 */
const TABLES = ["contacts", "companies", "deals", "tasks"] as const

export default statements(
  ...TABLES.map(
    (table) =>
      `CREATE INDEX ${table}_archived ON ${table} (organisation_id, created_at DESC, id DESC) WHERE archived_at IS NOT NULL`
  )
)
