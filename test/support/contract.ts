/**
 * Runs some of `@crm/testing`'s storage contract suites on every store, a describe block each.
 *
 * Every case still starts on an empty store, but a PostgreSQL store (PGlite or a server database)
 * is made once per block and emptied before each case: loading PGlite's data directory cost about
 * a second per case, most of the suite's time, where emptying the tables costs milliseconds. The
 * memory store is cheap to make and is made per case.
 */
import type { Kernel } from "@crm/core"
import { runStorageContract, type SuiteName } from "@crm/testing/contract"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe } from "vitest"
import { emptying, pgliteStore, type StorageCase, serverStore, storages } from "./storages.js"

/** The block's one store, emptied each time a case builds the layer. */
const sharedStore = (
  store: () => Layer.Layer<Kernel.StoragePorts | SqlClient.SqlClient, unknown>
): (() => Layer.Layer<Kernel.StoragePorts, unknown>) => {
  const scope = Effect.runSync(Scope.make())
  let built: { readonly context: Context.Context<Kernel.StoragePorts>; readonly empty: Effect.Effect<unknown, unknown> }
  beforeAll(() =>
    Effect.runPromise(
      Effect.gen(function* () {
        const context = yield* Layer.buildWithScope(store(), scope)
        built = { context, empty: yield* emptying(Context.get(context, SqlClient.SqlClient)) }
      })
    )
  )
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  return () => Layer.effectContext(Effect.suspend(() => Effect.as(built.empty, built.context)))
}

const layerOf = (storage: StorageCase): (() => Layer.Layer<Kernel.StoragePorts, unknown>) => {
  switch (storage.name) {
    case "memory":
      return storage.fresh
    case "pglite":
      return sharedStore(pgliteStore)
    case "postgres":
      return sharedStore(() => serverStore())
  }
}

export const contractOnEveryStore = (title: string, suites: ReadonlyArray<SuiteName>) => {
  for (const storage of storages) {
    describe(`${title} [${storage.name}]`, () => runStorageContract(storage.name, layerOf(storage), { suites }))
  }
}
