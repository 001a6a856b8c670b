import { statements } from "../internal/statements.js"

/**
 * `PUT /companies/by-domain/{domain}` finds the oldest live company with a domain, compared
 * case-insensitively: without this index that is a scan of the organisation's companies per
 * upsert. (Contacts are found by the unique live email index, products by their unique SKU.)
 */
export default statements(
  `CREATE INDEX companies_live_domain ON companies (organisation_id, lower(domain), created_at, id)
    WHERE archived_at IS NULL AND domain IS NOT NULL`
)
