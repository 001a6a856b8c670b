import { Health } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"

/** A statement that reads nothing: it answers when the server can be reached and take a statement. */
export const make: Effect.Effect<
  Context.Tag.Service<typeof Health.StoreProbe>,
  never,
  SqlClient.SqlClient
> = Effect.map(SqlClient.SqlClient, (sql) =>
  Health.StoreProbe.of({ ping: sql.unsafe("SELECT 1").pipe(Effect.asVoid, orStorageError("StoreProbe.ping")) })
)

export const layer = Layer.effect(Health.StoreProbe, make)
