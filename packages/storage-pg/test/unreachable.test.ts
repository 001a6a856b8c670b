/**
 * Which driver failures mean the database cannot be reached (503, retried by the client) and which
 * are a statement that failed (500): the errors as `pg` and `@effect/sql-pg` raise them.
 */
import { Errors } from "@crm/core"
import { SqlError } from "@effect/sql/SqlError"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { toStorageError } from "../src/internal/errors.js"

const socketError = (code: string, message: string) => Object.assign(new Error(message), { code, syscall: "connect" })

const serverError = (code: string, message: string) =>
  Object.assign(new pg.DatabaseError(message, 0, "error"), { code })

const onStatement = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })
const onConnect = (cause: unknown) => new SqlError({ cause, message: "Failed to acquire connection" })

const unreachable: Record<string, unknown> = {
  "connection refused": onConnect(socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")),
  "connection refused on every address of the host name": onConnect(
    new AggregateError([
      socketError("ECONNREFUSED", "connect ECONNREFUSED ::1:5432"),
      socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")
    ])
  ),
  "host name not found": onConnect(socketError("ENOTFOUND", "getaddrinfo ENOTFOUND db.internal")),
  "connection reset under a statement": onStatement(socketError("ECONNRESET", "read ECONNRESET")),
  "socket closed under a statement": onStatement(new Error("Connection terminated unexpectedly")),
  "error event of a connection in use": new SqlError({
    cause: new Error("Connection terminated unexpectedly"),
    message: "Connection error"
  }),
  "no answer to a new connection": onConnect(new Error("Connection terminated due to connection timeout")),
  "no connection free in the pool in time": onConnect(new Error("timeout exceeded when trying to connect")),
  "the pool's wait, from a statement sent to the pool itself": onStatement(
    new Error("timeout exceeded when trying to connect")
  ),
  "session ended by the administrator (57P01)": onStatement(
    serverError("57P01", "terminating connection due to administrator command")
  ),
  "server shutting down (57P02)": onStatement(serverError("57P02", "terminating connection because of crash")),
  "server starting up (57P03)": onConnect(serverError("57P03", "the database system is starting up")),
  "connection failure (08006)": onStatement(serverError("08006", "connection failure")),
  "statement past the statement timeout (57014)": onStatement(
    serverError("57014", "canceling statement due to statement timeout")
  ),
  "too many clients (53300)": onConnect(serverError("53300", "sorry, too many clients already")),
  "database not taking connections, on connect": onConnect(
    serverError("55000", 'database "crm" is not currently accepting connections')
  ),
  "a transaction's connection": new SqlError({
    cause: socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
    message: "Failed to acquire connection for transaction"
  }),
  "the first connection of the pool": new SqlError({
    cause: socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
    message: "PgClient: Failed to connect"
  })
}

const failedStatements: Record<string, unknown> = {
  "unique violation (23505)": onStatement(serverError("23505", "duplicate key value violates unique constraint")),
  "undefined table (42P01)": onStatement(serverError("42P01", 'relation "nowhere" does not exist')),
  "serialization failure (40001)": onStatement(serverError("40001", "could not serialize access")),
  "not in the required state, on a statement (55000)": onStatement(
    serverError("55000", "currval of sequence is not yet defined in this session")
  ),
  "a plain error": new Error("boom"),
  "not an error at all": "lead 42 was never recorded"
}

describe("toStorageError", () => {
  for (const [name, cause] of Object.entries(unreachable)) {
    it(`counts the database as unreachable: ${name}`, () => {
      const error = toStorageError("Port.call")(cause)
      expect(error).toBeInstanceOf(Errors.StorageUnavailable)
      expect(error.code).toBe("service_unavailable")
      expect(error.message.startsWith("Port.call: ")).toBe(true)
      expect(error.cause).toBe(cause)
    })
  }

  for (const [name, cause] of Object.entries(failedStatements)) {
    it(`counts a failed statement as a storage error, not an outage: ${name}`, () => {
      const error = toStorageError("Port.call")(cause)
      expect(error).toBeInstanceOf(Errors.StorageError)
      expect(error).not.toBeInstanceOf(Errors.StorageUnavailable)
      expect(error.code).toBe("storage_error")
    })
  }
})
