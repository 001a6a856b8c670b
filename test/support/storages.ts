/**
 * The stores every black-box, model and contract suite runs on: memory and PGlite always, the
 * PostgreSQL server when DATABASE_URL is set. Each `fresh()` layer is an isolated, empty,
 * migrated store: PGlite loads a copy of a template migrated once per process; the server
 * gets a new database copied from a migrated template database, dropped on release.
 */
import type { Storage } from "@crm/server"
import * as StorageMemory from "@crm/storage-memory"
import * as StoragePg from "@crm/storage-pg"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createDatabase, freshDatabase, serverUrl } from "./pgDatabase.js"

export interface StorageCase {
  readonly name: string
  /** Prepares what every fresh store of this kind is copied from (call in beforeAll). */
  readonly setup: () => Promise<void>
  readonly teardown: () => Promise<void>
  /** A new empty store each time the layer is built; released with the layer. */
  readonly fresh: () => Layer.Layer<Storage.StoragePorts, unknown>
}

/** A shared template, created by the first user and dropped after the last one. */
const shared = <T>(create: () => Promise<T>, drop: (value: T) => Promise<void>) => {
  let users = 0
  let value: Promise<T> | undefined
  return {
    acquire: async () => {
      users++
      value ??= create()
      await value
    },
    release: async () => {
      users--
      if (users === 0 && value !== undefined) {
        const current = value
        value = undefined
        await drop(await current)
      }
    },
    get: (): Promise<T> => {
      if (value === undefined) throw new Error("storage template used before setup()")
      return value
    }
  }
}

export const memory: StorageCase = {
  name: "memory",
  setup: async () => {},
  teardown: async () => {},
  fresh: () => StorageMemory.layer
}

/**
 * The PGlite template is an immutable tarball in this process's memory, so it is kept for the
 * process's life: made once however many suites (and, when the worker is reused, files) load it,
 * where dropping it after each suite had initdb and the migrations run again for the next one.
 * A failed attempt is forgotten, so that the next suite tries again and reports its own failure.
 */
let pgliteTemplate: Promise<Blob> | undefined
const loadPgliteTemplate = (): Promise<Blob> => {
  if (pgliteTemplate === undefined) {
    const made = Effect.runPromise(StoragePg.pgliteTemplate)
    pgliteTemplate = made
    made.catch(() => {
      if (pgliteTemplate === made) pgliteTemplate = undefined
    })
  }
  return pgliteTemplate
}

export const pglite: StorageCase = {
  name: "pglite",
  setup: async () => {
    await loadPgliteTemplate()
  },
  teardown: async () => {},
  fresh: () =>
    Layer.unwrapEffect(
      Effect.map(Effect.promise(loadPgliteTemplate), (template) => StoragePg.layerPglite({ loadDataDir: template }))
    )
}

const serverTemplate = shared(
  async () => {
    const template = await createDatabase(serverUrl!)
    await Effect.runPromise(Effect.scoped(Layer.build(StoragePg.layerServer({ url: template.url, maxConnections: 1 }))))
    return template
  },
  (template) => template.drop()
)

export const postgres: StorageCase = {
  name: "postgres",
  setup: serverTemplate.acquire,
  teardown: serverTemplate.release,
  fresh: () =>
    Layer.unwrapScoped(
      Effect.gen(function* () {
        const template = yield* Effect.promise(serverTemplate.get)
        const database = yield* freshDatabase(serverUrl!, { template: template.name })
        return StoragePg.layerServer({ url: database.url })
      })
    )
}

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
