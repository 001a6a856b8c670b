import { statements } from "../internal/statements.js"

/**
 * Each key's fence for reads from a standby (`internal/standby.ts`): the primary's WAL position
 * after the key's last request that may have written. Written only by a store with a standby.
 */
export default statements(`CREATE TABLE read_fences (
  organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  key_id text NOT NULL,
  after_lsn pg_lsn NOT NULL,
  PRIMARY KEY (organisation_id, key_id)
)`)
