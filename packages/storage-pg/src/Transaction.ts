import { Transaction } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isSqlError, toStorageError } from "./internal/errors.js"

export const make = Effect.map(SqlClient.SqlClient, (sql) =>
  Transaction.Transaction.of({
    run: (self) =>
      // Ports already turn their own SqlErrors into StorageErrors; what is left here comes from
      // BEGIN, COMMIT, ROLLBACK or a savepoint.
      Effect.catchIf(sql.withTransaction(self), isSqlError, (error) =>
        Effect.fail(toStorageError("Transaction.run")(error))
      )
  })
)

export const layer = Layer.effect(Transaction.Transaction, make)
