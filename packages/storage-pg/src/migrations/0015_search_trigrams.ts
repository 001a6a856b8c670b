import { statements } from "../internal/statements.js"

// `q` is a case-insensitive substring match (`column ILIKE '%...%'`), which no btree can answer:
// without these indexes it filters every live row of the organisation (1.3 s at a million
// contacts). A trigram GIN index answers ILIKE with a leading wildcard; one per searchable column,
// so the query stays as it is (an OR of ILIKEs, a BitmapOr of the indexes) and keeps its exact
// semantics. Partial like the queries: an archived row is never searched. A `q` of one or two
// characters has no trigram; the planner then walks the list index instead, as before.
// pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it. PGlite loads
// it through the client's `extensions` option (PgliteClient).
export default statements(
  `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
  `CREATE INDEX contacts_q_first_name ON contacts USING gin (first_name gin_trgm_ops) WHERE archived_at IS NULL`,
  `CREATE INDEX contacts_q_last_name ON contacts USING gin (last_name gin_trgm_ops) WHERE archived_at IS NULL`,
  `CREATE INDEX contacts_q_email ON contacts USING gin (email gin_trgm_ops) WHERE archived_at IS NULL`,
  `CREATE INDEX contacts_q_phone ON contacts USING gin (phone gin_trgm_ops) WHERE archived_at IS NULL`,
  `CREATE INDEX companies_q_name ON companies USING gin (name gin_trgm_ops) WHERE archived_at IS NULL`,
  `CREATE INDEX companies_q_domain ON companies USING gin (domain gin_trgm_ops) WHERE archived_at IS NULL`,
  `CREATE INDEX companies_q_email ON companies USING gin (email gin_trgm_ops) WHERE archived_at IS NULL`
)
