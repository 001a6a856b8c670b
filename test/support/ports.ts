/** Builds a fresh store once for a suite and hands out its services, for tests below the HTTP level. */

import type { Storage } from "@crm/server"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type { StorageCase } from "./storages.js"

export interface Built<R> {
  readonly context: Context.Context<R>
  readonly run: <A, E>(effect: Effect.Effect<A, E, R>) => Promise<A>
  readonly close: () => Promise<void>
}

export const build = async <R>(
  storage: StorageCase,
  extend: (ports: Layer.Layer<Storage.StoragePorts, unknown>) => Layer.Layer<R, unknown>
): Promise<Built<R>> => {
  await storage.setup()
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(extend(storage.fresh()), scope))
  return {
    context,
    run: (effect) => Effect.runPromise(Effect.provide(effect, context)),
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await storage.teardown()
    }
  }
}

/**
 * The same store and services as a layer, for `@effect/vitest`'s `layer(...)`: the store's template
 * is prepared when the layer is built and released with it.
 */
export const layerOn = <R>(
  storage: StorageCase,
  extend: (ports: Layer.Layer<Storage.StoragePorts, unknown>) => Layer.Layer<R, unknown>
): Layer.Layer<R, unknown> =>
  Layer.unwrapScoped(
    Effect.as(
      Effect.acquireRelease(Effect.promise(storage.setup), () => Effect.promise(storage.teardown)),
      extend(storage.fresh())
    )
  )
