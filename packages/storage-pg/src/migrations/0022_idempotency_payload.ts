import { statements } from "../internal/statements.js"

/**
 * An idempotency record keeps the answer as its transport encoded it, one opaque `payload`, no
 * longer an HTTP response in three columns. Rows stored before are encoded here exactly as
 * packages/http encodes a response (its `StoredResponse.encode`: the status, a line feed, the
 * headers as JSON, a line feed, the body), so a retry arriving after the upgrade still replays them.
 */
export default statements(
  `ALTER TABLE idempotency ADD COLUMN payload text`,
  `UPDATE idempotency SET payload = status::text || chr(10) || headers::text || chr(10) || body`,
  `ALTER TABLE idempotency ALTER COLUMN payload SET NOT NULL`,
  `ALTER TABLE idempotency DROP COLUMN status, DROP COLUMN headers, DROP COLUMN body`
)
