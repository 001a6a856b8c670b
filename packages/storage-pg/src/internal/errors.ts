import { Errors } from "@crm/core"
import { type SqlError, SqlErrorTypeId } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { StoredValueRefused } from "./storedValues.js"

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

// What the socket says when the server is down, restarting, unreachable or gone from under a
// connection, one error per address tried (an AggregateError) when a host name has several.
const UNREACHABLE_ERRNO = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN"
])

// SQLSTATEs of a server that is shutting down, starting up, out of connection slots, of a
// connection that broke (class 08), or of a statement it cancelled (57014: past the statement
// timeout, or cancelled by an operator): a database that does not answer in time is out of reach.
const UNREACHABLE_STATE = /^(?:08...|57P0[123]|57014|53300)$/

// `@effect/sql-pg` reports every failure to get a connection (whatever the server said: not
// accepting connections, too many clients, the pool's own timeout) and every error event of a
// connection in use under these messages; `pg` itself says "Connection terminated ..." when the
// socket closes under a statement and names its pool's timeout.
const UNREACHABLE_MESSAGE =
  /^(?:Failed to acquire connection|Connection error$|PgClient: Failed to connect|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/

/**
 * Whether a failure means the database cannot be reached, rather than that a statement failed: the
 * first is an outage that ends on its own (503 and a retry), the second a defect (500).
 */
export const isUnreachable = (cause: unknown): boolean => {
  if (!Predicate.isObject(cause)) return false
  const { code, message } = cause as { readonly code?: unknown; readonly message?: unknown }
  if (typeof code === "string" && (UNREACHABLE_ERRNO.has(code) || UNREACHABLE_STATE.test(code))) return true
  if (typeof message === "string" && UNREACHABLE_MESSAGE.test(message)) return true
  if (cause instanceof AggregateError && cause.errors.some(isUnreachable)) return true
  return "cause" in cause && cause.cause !== cause && isUnreachable(cause.cause)
}

export const toStorageError =
  (operation: string) =>
  (cause: unknown): Errors.StorageError => {
    const inner = isSqlError(cause) ? driverError(cause).message : undefined
    const reason = typeof inner === "string" ? inner : cause instanceof Error ? cause.message : String(cause)
    const message = `${operation}: ${reason}`
    return isUnreachable(cause)
      ? new Errors.StorageUnavailable({ message, cause })
      : new Errors.StorageError({ message, cause })
  }

/**
 * The one place where `SqlError` stops: every port method ends with this. A row a reader refused
 * (`StoredValueRefused`, thrown while mapping rows) stops here too, as a failure of the operation
 * that read it rather than a defect. Other errors pass through.
 */
export const orStorageError =
  (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E | SqlError, R>): Effect.Effect<A, Exclude<E, SqlError> | Errors.StorageError, R> =>
    Effect.catchIf(self, isSqlError, (error) => Effect.fail(toStorageError(operation)(error))).pipe(
      Effect.catchSomeDefect((defect) =>
        defect instanceof StoredValueRefused
          ? Option.some(Effect.fail(toStorageError(operation)(defect)))
          : Option.none()
      )
    ) as Effect.Effect<A, Exclude<E, SqlError> | Errors.StorageError, R>
