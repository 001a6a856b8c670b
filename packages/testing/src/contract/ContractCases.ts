/**
 * How every contract suite registers its cases: each on the live clock (`it.live`; adapters may
 * time out or sleep inside, and races need real scheduling), each on a store of its own, since
 * `makeLayer` is built once per case.
 */
import type { Kernel } from "@crm/core"
import { describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"

export interface ContractOptions {
  /**
   * `false` skips the cases that run several units of work at once (races for one number or
   * one unique value, limits under contention, `getForUpdate` holding a row until commit, a
   * poller beside committing writers). They are reported as skipped, not passed: an adapter that
   * skips them does not yet keep the contract. Default `true`; memory, PGlite and the PostgreSQL
   * server all run them.
   */
  readonly concurrency?: boolean
}

const TIMEOUT = 60_000

/** How a suite registers its cases; a suite kept in several files hands it to each. */
export interface Cases<R> {
  /** A case that needs one unit of work at a time. */
  readonly test: <A, E>(title: string, body: Effect.Effect<A, E, R>, timeout?: number) => void
  /** A case that runs several units of work at once (see `ContractOptions.concurrency`). */
  readonly concurrent: <A, E>(title: string, body: Effect.Effect<A, E, R>, timeout?: number) => void
}

export const contractCases = <R>(layer: () => Layer.Layer<R, unknown>, options: ContractOptions = {}): Cases<R> => {
  const runConcurrent = options.concurrency !== false
  return {
    test: (title, body, timeout = TIMEOUT) => it.live(title, () => Effect.provide(body, layer()), timeout),
    concurrent: (title, body, timeout = TIMEOUT) =>
      (runConcurrent ? it.live : it.live.skip)(title, () => Effect.provide(body, layer()), timeout)
  }
}

/** A contract's entry point: registers its cases for the adapter `name`, each on a fresh `makeLayer()`. */
export type Suite = (
  name: string,
  makeLayer: () => Layer.Layer<Kernel.StoragePorts, unknown>,
  options?: ContractOptions
) => void

/**
 * A suite whose cases `register` adds inside one `describe` block, titled `<title>: <adapter name>`;
 * it is told the adapter's name for the few cases that differ by store.
 */
export const contractSuite =
  (title: string, register: (cases: Cases<Kernel.StoragePorts>, name: string) => void): Suite =>
  (name, makeLayer, options = {}) =>
    describe(`${title}: ${name}`, () => register(contractCases(makeLayer, options), name))
