import { Health } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { isSqlError, orStorageError, sqlState } from "./internal/errors.js"
import { StandbyTag } from "./internal/standby.js"
import { migrations, TABLE } from "./Migrations.js"

/** Each migration of this build by the id the migrator records (`0017_webhook_circuit` is 17). */
const known: ReadonlyArray<readonly [id: number, name: string]> = Object.keys(migrations).map((name) => [
  Number.parseInt(name, 10),
  name
])

// The migrator's table does not exist until the first migration runs.
const UNDEFINED_TABLE = "42P01"

/**
 * A statement that reads nothing answers when the server can be reached and take a statement. The
 * applied migrations are read until all of this build's are there, and never after: a migration is
 * not undone, so a ready process pays one `SELECT 1` per readiness check.
 */
export const make: Effect.Effect<
  Context.Tag.Service<typeof Health.StoreProbe>,
  never,
  SqlClient.SqlClient
> = Effect.map(Effect.all([SqlClient.SqlClient, Effect.serviceOption(StandbyTag)]), ([sql, standby]) => {
  let allApplied = false
  const applied = sql<{ readonly migration_id: number }>`SELECT migration_id FROM ${sql(TABLE)}`.pipe(
    Effect.catchIf(
      (error) => isSqlError(error) && sqlState(error) === UNDEFINED_TABLE,
      () => Effect.succeed([])
    ),
    Effect.map((rows) => {
      const ids = new Set(rows.map((row) => Number(row.migration_id)))
      const missing = known.filter(([id]) => !ids.has(id)).map(([, name]) => name)
      if (missing.length === 0) allApplied = true
      return missing
    }),
    orStorageError("StoreProbe.missingMigrations")
  )
  return Health.StoreProbe.of({
    ping: sql.unsafe("SELECT 1").pipe(Effect.asVoid, orStorageError("StoreProbe.ping")),
    missingMigrations: Effect.suspend(() => (allApplied ? Effect.succeed([]) : applied)),
    // As the standby's watch last saw it (`internal/standby.ts`): readiness asks it nothing more.
    standby: Effect.sync(() => (Option.isSome(standby) ? standby.value.state : undefined))
  })
})

export const layer = Layer.effect(Health.StoreProbe, make)
