import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { isUniqueViolation } from "./errors.js"
import type { Guard } from "./liveRecords.js"

/**
 * An insert guarded by a unique index: it runs in its own savepoint, so a violation rolls back only
 * that, and the caller's transaction can still read which row holds the value (committed by then,
 * since the violation waited for it) to name it in the conflict.
 */
export const uniqueGuard =
  <E>(
    sql: SqlClient.SqlClient,
    index: string,
    holder: Effect.Effect<ReadonlyArray<{ readonly id: string }>, SqlError>,
    refuse: (holderId: string | null) => E
  ): Guard<E> =>
  (write) =>
    sql.withTransaction(write).pipe(
      Effect.catchIf(
        (error) => isUniqueViolation(error, index),
        () => Effect.flatMap(holder, (rows) => Effect.fail(refuse(rows[0]?.id ?? null)))
      )
    )
