/**
 * What the models' commands need of the kernel: a way to run an effect on its services. Any
 * storage will do; `runner(layer)` makes one from the kernel's layer provided with a store.
 */
import { Access, type Resource, Settings } from "@crm/core"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"

/** Runs effects on the kernel's services (`R`), each to a promise. */
export interface Runner<R> {
  readonly run: <A, E>(effect: Effect.Effect<A, E, R>) => Promise<A>
}

/** A runner that also releases what it built (the store's connections, its scope). */
export interface ClosableRunner<R> extends Runner<R> {
  readonly close: () => Promise<void>
}

/**
 * A runner over a layer of the kernel's services, built on first use and released by `close`:
 * `runner(Kernel.layer.pipe(Layer.provide(StorageMemory.layer)))`.
 */
export const runner = <R, E>(layer: Layer.Layer<R, E, never>): ClosableRunner<R> => {
  const runtime = ManagedRuntime.make(layer)
  return { run: (effect) => runtime.runPromise(effect), close: () => runtime.dispose() }
}

/** What every command of a model acts on: the kernel, the organisation of this run, and who acts. */
export interface Real<R> {
  readonly kernel: Runner<R>
  readonly organisation: Settings.Organisation
  readonly actor: Resource.Actor
}

/** An operation's outcome, success or failure, for a command to compare with what the model expects. */
export const attempt = <A, E, R>(real: Real<R>, effect: Effect.Effect<A, E, R>): Promise<Either.Either<A, E>> =>
  real.kernel.run(Effect.either(effect))

/** A new organisation for one run of a model's commands, with the settings the model needs (if any). */
export const newOrganisation = (kernel: Runner<Access.Access>, settings?: unknown): Promise<Settings.Organisation> =>
  kernel.run(
    Effect.flatMap(Access.Access, (access) =>
      access.createOrganisation(
        Settings.OrganisationCreate.parse(settings === undefined ? { name: "model" } : { name: "model", settings })
      )
    )
  )
