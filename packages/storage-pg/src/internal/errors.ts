import { Errors } from "@crm/core"
import { type SqlError, SqlErrorTypeId } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"

export const isSqlError = (error: unknown): error is SqlError => Predicate.hasProperty(error, SqlErrorTypeId)

// The driver's own error (pg's DatabaseError, PGlite's DatabaseError) sits in `cause`: both carry
// the SQLSTATE in `code` and the violated constraint in `constraint`.
const driverError = (
  error: SqlError
): { readonly code?: unknown; readonly constraint?: unknown; readonly message?: unknown } =>
  Predicate.isObject(error.cause) ? error.cause : {}

export const sqlState = (error: SqlError): string | undefined => {
  const code = driverError(error).code
  return typeof code === "string" ? code : undefined
}

/** A unique violation of `constraint`; when the driver does not name the constraint, any unique violation. */
export const isUniqueViolation = (error: SqlError, constraint: string): boolean => {
  if (sqlState(error) !== "23505") return false
  const named = driverError(error).constraint
  return typeof named !== "string" || named === constraint
}

export const toStorageError =
  (operation: string) =>
  (cause: unknown): Errors.StorageError => {
    const inner = isSqlError(cause) ? driverError(cause).message : undefined
    const reason = typeof inner === "string" ? inner : cause instanceof Error ? cause.message : String(cause)
    return new Errors.StorageError({ message: `${operation}: ${reason}`, cause })
  }

/** The one place where `SqlError` stops: every port method ends with this. Other errors pass through. */
export const orStorageError =
  (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E | SqlError, R>): Effect.Effect<A, Exclude<E, SqlError> | Errors.StorageError, R> =>
    Effect.catchIf(self, isSqlError, (error) => Effect.fail(toStorageError(operation)(error))) as Effect.Effect<
      A,
      Exclude<E, SqlError> | Errors.StorageError,
      R
    >
