/**
 * The stores every black-box, model and contract suite runs on: memory and PGlite always, the
 * PostgreSQL server when DATABASE_URL is set. Each `fresh()` layer is an isolated, empty,
 * migrated store. The PostgreSQL ones start from a template that `globalSetup.ts` migrates once
 * for the whole run: the server gets a new database copied from a template database, dropped on
 * release; PGlite loads a data directory dumped to a file, once per worker, and that instance is
 * then lent to one store at a time and emptied for each (`lentPglite`).
 */
import { readFile } from "node:fs/promises"
import type { Errors } from "@crm/core"
import type { Storage } from "@crm/server"
import * as StorageMemory from "@crm/storage-memory"
import * as StoragePg from "@crm/storage-pg"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { inject } from "vitest"
import { freshDatabase, serverUrl } from "./pgDatabase.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The file holding the migrated PGlite data directory (`StoragePg.pgliteTemplate`). */
    readonly pgliteTemplate: string | undefined
    /** The migrated database on the server that each fresh one is copied from. */
    readonly serverTemplate: string | undefined
    /** The directory this run's bundles of the programs tests run as processes go into (`sources.ts`). */
    readonly bundles: string
  }
}

export interface StorageCase {
  readonly name: "memory" | "pglite" | "postgres"
  /** A new empty store each time the layer is built; released with the layer. */
  readonly fresh: () => Layer.Layer<Storage.StoragePorts, unknown>
}

const provided = (key: "pgliteTemplate" | "serverTemplate"): string => {
  const value = inject(key)
  if (value === undefined) throw new Error(`${key} was not prepared: run the tests through vitest.config.ts`)
  return value
}

export const memory: StorageCase = { name: "memory", fresh: () => StorageMemory.layer }

// Read once per process: the tarball is immutable and loading it is all a fresh store costs.
let template: Promise<Blob> | undefined

/** The run's migrated PGlite data directory, as a tarball for `layerPglite({ loadDataDir })`. */
export const pgliteTemplate = (): Promise<Blob> =>
  (template ??= readFile(provided("pgliteTemplate")).then((bytes) => new Blob([bytes])))

/** An empty migrated PGlite store, with its client for tests that read the tables themselves. */
export const pgliteStore = (): Layer.Layer<StoragePg.Ports | SqlClient.SqlClient, unknown> =>
  Layer.unwrapEffect(
    Effect.map(Effect.promise(pgliteTemplate), (loadDataDir) => StoragePg.layerPglite({ loadDataDir }))
  )

/**
 * A pooler in transaction mode in front of the server (`CRM_TEST_POOLER_URL`, e.g. PgBouncer at
 * `postgres://postgres@127.0.0.1:6432`, which CI starts): the stores then reach each fresh
 * database through it, with `pooler: "transaction"`, while databases are made and dropped on the
 * server directly.
 */
const poolerUrl = process.env.CRM_TEST_POOLER_URL || undefined

const throughPooler = (url: string): string => {
  if (poolerUrl === undefined) return url
  const pooled = new URL(url)
  const pooler = new URL(poolerUrl)
  pooled.host = pooler.host
  return pooled.toString()
}

/**
 * `CRM_TEST_READ_ONLY_STANDBY=1`: each store is given a "standby" (`readUrl`) that is its own
 * database through a read-only connection, so that every request the store would send to a
 * standby (the REST API's GETs) fails if it writes, with no lag to make other keys' reads racy.
 * The real standby's own suite is test/http/standby.pg.test.ts.
 */
const readOnlyStandby = process.env.CRM_TEST_READ_ONLY_STANDBY === "1"

/**
 * A store on a database of the server, as this run reaches it: through the pooler when there is
 * one (`pooler: "transaction"`), with the read-only "standby" when asked. The suites of several
 * processes on one database build theirs with it too.
 */
export const serverLayer = (
  url: string,
  options: Omit<StoragePg.ServerOptions, "url"> = {}
): Layer.Layer<StoragePg.Ports | SqlClient.SqlClient, Errors.StorageError> =>
  StoragePg.layerServer({
    ...(poolerUrl === undefined ? {} : { pooler: "transaction" as const }),
    ...(readOnlyStandby ? { readUrl: `${url}?options=-c%20default_transaction_read_only%3Don` } : {}),
    ...options,
    url: throughPooler(url)
  })

/** A new migrated database on the server (DATABASE_URL), dropped on release. */
export const serverStore = (
  options: Omit<StoragePg.ServerOptions, "url"> = {}
): Layer.Layer<StoragePg.Ports | SqlClient.SqlClient, unknown> =>
  Layer.unwrapScoped(
    Effect.suspend(() =>
      Effect.map(freshDatabase(serverUrl!, { template: provided("serverTemplate") }), (database) =>
        serverLayer(database.url, options)
      )
    )
  )

/**
 * A PostgreSQL store built once into `scope`, with the statement that empties it again
 * (`StoragePg.emptying`): the worker's PGlite here, and the contract's database per block.
 */
export const reusable = (
  store: Layer.Layer<StoragePg.Ports | SqlClient.SqlClient, unknown>,
  scope: Scope.Scope
): Effect.Effect<
  { readonly context: Context.Context<StoragePg.Ports>; readonly empty: Effect.Effect<void, unknown> },
  unknown
> =>
  Effect.gen(function* () {
    const context = yield* Layer.buildWithScope(store, scope)
    const empty = yield* StoragePg.emptying.pipe(
      Effect.provideService(SqlClient.SqlClient, Context.get(context, SqlClient.SqlClient))
    )
    return { context, empty }
  })

/**
 * The worker's PGlite: loading the template costs 1.5-1.8 s (3 s the first time), the most a
 * black-box suite on PGlite spent before its first request, where emptying costs milliseconds.
 * It is made once per worker, on first use, and never closed (the worker's end takes it).
 */
let worker:
  | {
      readonly ready: Promise<{
        readonly context: Context.Context<StoragePg.Ports>
        readonly empty: Effect.Effect<void, unknown>
      }>
      lent: boolean
    }
  | undefined

/**
 * An empty migrated PGlite store: the worker's instance, emptied, when no other store holds it;
 * one of its own when it is lent (two stores alive at once, as a test of two servers has).
 */
const lentPglite = (): Layer.Layer<StoragePg.Ports, unknown> =>
  Layer.unwrapScoped(
    Effect.suspend((): Effect.Effect<Layer.Layer<StoragePg.Ports, unknown>, unknown, Scope.Scope> => {
      if (worker?.lent === true) return Effect.succeed(pgliteStore())
      if (worker === undefined) {
        const ready = Effect.runPromise(Effect.flatMap(Scope.make(), (scope) => reusable(pgliteStore(), scope)))
        worker = { ready, lent: false }
      }
      const shared = worker
      shared.lent = true
      return Effect.acquireRelease(
        Effect.flatMap(
          Effect.promise(() => shared.ready),
          ({ context, empty }) => Effect.as(empty, context)
        ),
        () => Effect.sync(() => (shared.lent = false))
      ).pipe(Effect.map(Layer.succeedContext))
    })
  )

export const pglite: StorageCase = { name: "pglite", fresh: lentPglite }

export const postgres: StorageCase = { name: "postgres", fresh: () => serverStore() }

/**
 * Every store available: memory and PGlite, and the server when `DATABASE_URL` is set.
 * `CRM_TEST_STORES` (comma-separated names) keeps only those: CI runs the suite once on memory and
 * PGlite, then with `CRM_TEST_STORES=postgres` on the server, rather than the first two twice.
 */
const available: ReadonlyArray<StorageCase> = serverUrl === undefined ? [memory, pglite] : [memory, pglite, postgres]
const chosen = process.env.CRM_TEST_STORES?.split(",")
  .map((name) => name.trim())
  .filter((name) => name !== "")

export const storages: ReadonlyArray<StorageCase> =
  chosen === undefined ? available : available.filter((storage) => chosen.includes(storage.name))
