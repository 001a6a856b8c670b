import { Transaction } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { atomically } from "./internal/atomically.js"
import { isSqlError, toStorageError } from "./internal/errors.js"

export const make = Effect.map(SqlClient.SqlClient, (sql) =>
  Transaction.Transaction.of({
    run: (self) =>
      // A nested unit joins the enclosing one (see `Transaction`). Ports already turn their own
      // SqlErrors into StorageErrors; what is left here comes from BEGIN, COMMIT or ROLLBACK.
      Effect.catchIf(atomically(sql)(self), isSqlError, (error) =>
        Effect.fail(toStorageError("Transaction.run")(error))
      )
  })
)

export const layer = Layer.effect(Transaction.Transaction, make)
