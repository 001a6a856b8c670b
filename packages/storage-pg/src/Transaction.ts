import { Transaction } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { atomically } from "./internal/atomically.js"
import { isSqlError, orStorageError, toStorageError } from "./internal/errors.js"
import { executeOn } from "./internal/execute.js"
import { keyLock, organisationLock } from "./internal/organisationLock.js"

// Its own statement, before the count it guards: under READ COMMITTED a statement reads the
// snapshot taken when it began, so a count in the statement that waited for the lock would miss
// the rows the previous holder committed meanwhile.
const LOCK_ORGANISATION = `SELECT ${organisationLock("$1")}`
const LOCK_KEY = `SELECT ${keyLock("$1")}`

export const make: Effect.Effect<
  Context.Tag.Service<typeof Transaction.Transaction>,
  never,
  SqlClient.SqlClient
> = Effect.map(SqlClient.SqlClient, (sql) => {
  const inUnit = atomically(sql)
  const execute = executeOn(sql)
  return Transaction.Transaction.of({
    run: (self) =>
      // A nested unit joins the enclosing one (see `Transaction`). Ports already turn their own
      // SqlErrors into StorageErrors; what is left here comes from BEGIN, COMMIT or ROLLBACK.
      Effect.catchIf(inUnit(self), isSqlError, (error) => Effect.fail(toStorageError("Transaction.run")(error))),
    lockOrganisation: (organisationId) =>
      execute(LOCK_ORGANISATION, [organisationId]).pipe(Effect.asVoid, orStorageError("Transaction.lockOrganisation")),
    lockKey: (organisationId, key) =>
      execute(LOCK_KEY, [`${organisationId}/${key}`]).pipe(Effect.asVoid, orStorageError("Transaction.lockKey"))
  })
})

export const layer = Layer.effect(Transaction.Transaction, make)
