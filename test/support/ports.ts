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
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(extend(storage.fresh()), scope))
  return {
    context,
    run: (effect) => Effect.runPromise(Effect.provide(effect, context)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** The same store and services as a layer, for `@effect/vitest`'s `layer(...)`. */
export const layerOn = <R>(
  storage: StorageCase,
  extend: (ports: Layer.Layer<Storage.StoragePorts, unknown>) => Layer.Layer<R, unknown>
): Layer.Layer<R, unknown> => Layer.suspend(() => extend(storage.fresh()))
