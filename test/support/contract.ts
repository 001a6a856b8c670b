/**
 * Runs some of `@crm/testing`'s storage contract suites on every store, a describe block each.
 *
 * Every case starts on an empty store. On PGlite that is the worker's instance, emptied
 * (`storages.ts`): loading PGlite's data directory cost about a second per case, most of the
 * suite's time. On the PostgreSQL server one database is made per block and emptied before each
 * case, where copying the template per case cost a CREATE and a DROP DATABASE each. The memory
 * store is cheap to make and is made per case.
 */
import type { Kernel } from "@crm/core"
import { runStorageContract, type SuiteName } from "@crm/testing/contract"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe } from "vitest"
import { reusable, type StorageCase, serverStore, storages } from "./storages.js"

/** The block's one store, emptied each time a case builds the layer. Call it inside the block's `describe`. */
export const sharedStore = (
  store: () => Layer.Layer<Kernel.StoragePorts | SqlClient.SqlClient, unknown>
): (() => Layer.Layer<Kernel.StoragePorts, unknown>) => {
  const scope = Effect.runSync(Scope.make())
  let built: Effect.Effect.Success<ReturnType<typeof reusable>>
  beforeAll(async () => {
    built = await Effect.runPromise(reusable(store(), scope))
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  return () => Layer.effectContext(Effect.suspend(() => Effect.as(built.empty, built.context)))
}

const layerOf = (storage: StorageCase): (() => Layer.Layer<Kernel.StoragePorts, unknown>) =>
  storage.name === "postgres" ? sharedStore(() => serverStore()) : storage.fresh

export const contractOnEveryStore = (title: string, suites: ReadonlyArray<SuiteName>) => {
  for (const storage of storages) {
    describe(`${title} [${storage.name}]`, () => runStorageContract(storage.name, layerOf(storage), { suites }))
    // The server store's other statement path (`StoragePg.Statements`): everything through `@effect/sql`.
    if (storage.name === "postgres") {
      describe(`${title} [postgres, plain statements]`, () =>
        runStorageContract(
          "postgres",
          sharedStore(() => serverStore({ statements: "plain" })),
          { suites }
        ))
    }
  }
}
