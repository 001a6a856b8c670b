import type { Errors } from "@crm/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { orStorageError } from "./errors.js"
import { count } from "./storedValues.js"

/**
 * Deletes a table's rows whose time `column` is before `before` and says how many: what each daily
 * purge does (the audit trail, idempotency records, webhook deliveries, lapsed authorizations).
 * `table` and `column` are the caller's constants, never input.
 */
export const purgeBefore = (
  sql: SqlClient.SqlClient,
  table: string,
  column: string,
  before: string,
  operation: string
): Effect.Effect<number, Errors.StorageError> =>
  sql<{ readonly n: string }>`WITH purged AS (
      DELETE FROM ${sql(table)} WHERE ${sql(column)} < ${before}::timestamptz RETURNING 1
    )
    SELECT count(*) AS n FROM purged`.pipe(
    Effect.map((rows) => count(rows[0]!.n)),
    orStorageError(operation)
  )
