/** Which store the server runs on: PostgreSQL when DATABASE_URL is set, else embedded PGlite (or memory). */
import type { Kernel } from "@crm/core"
import * as StorageMemory from "@crm/storage-memory"
import * as StoragePg from "@crm/storage-pg"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

export type StoragePorts = Kernel.StoragePorts

export const StorageConfig = Config.all({
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  dataDir: Config.string("CRM_DATA_DIR").pipe(Config.withDefault("./data")),
  kind: Config.literal("pglite", "postgres", "memory")("CRM_STORAGE").pipe(Config.option),
  statementTimeoutMs: Config.integer("CRM_STATEMENT_TIMEOUT_MS").pipe(
    Config.validate({ message: "must be 0 (no limit) or more", validation: (ms) => ms >= 0 }),
    Config.withDefault(StoragePg.DEFAULT_STATEMENT_TIMEOUT_MS)
  ),
  pooler: Config.literal("none", "transaction")("CRM_DATABASE_POOLER").pipe(Config.withDefault("none" as const)),
  poolSize: Config.integer("CRM_DATABASE_POOL_SIZE").pipe(
    Config.validate({ message: "must be 1 or more", validation: (n) => n >= 1 }),
    Config.withDefault(StoragePg.DEFAULT_POOL_SIZE)
  ),
  readUrl: Config.option(Config.redacted("CRM_READ_DATABASE_URL")),
  standbyMaxLagMs: Config.integer("CRM_READ_MAX_LAG_MS").pipe(
    Config.validate({ message: "must be 0 or more", validation: (ms) => ms >= 0 }),
    Config.withDefault(StoragePg.DEFAULT_STANDBY_MAX_LAG_MS)
  )
})

export const describe = (config: Config.Config.Success<typeof StorageConfig>): string =>
  Option.isSome(config.kind) && config.kind.value === "memory"
    ? "memory (nothing is kept when the process stops)"
    : Option.isSome(config.databaseUrl)
      ? Option.isSome(config.readUrl)
        ? "PostgreSQL (DATABASE_URL), reads from a standby (CRM_READ_DATABASE_URL)"
        : "PostgreSQL (DATABASE_URL)"
      : `PGlite in ${config.dataDir}`

/** `templateDir`: a migrated PGlite data directory a new `CRM_DATA_DIR` starts as a copy of. */
export const layerFrom = (
  config: Config.Config.Success<typeof StorageConfig>,
  options: { readonly templateDir?: string } = {}
): Layer.Layer<StoragePorts, unknown> => {
  if (Option.isSome(config.kind) && config.kind.value === "memory") return StorageMemory.layer
  return StoragePg.layerFor({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    statementTimeoutMs: config.statementTimeoutMs,
    pooler: config.pooler,
    maxConnections: config.poolSize,
    readUrl: config.readUrl,
    standbyMaxLagMs: config.standbyMaxLagMs,
    ...options
  })
}

export const layerConfig: Layer.Layer<StoragePorts, unknown> = Layer.unwrapEffect(Effect.map(StorageConfig, layerFrom))
