/**
 * `@crm/testing/contract`: the storage contract suite that memory, PGlite and the PostgreSQL
 * server pass, for any adapter of the kernel's storage ports. Call `runStorageContract` at the top
 * level of a vitest test file; it registers every case in `describe` blocks. An entry of its own so
 * that users of the arbitraries need not install vitest.
 *
 * `makeLayer` is built once per case and must give an isolated, empty, migrated store each time
 * (some cases count the organisations of the whole store), released with the layer.
 */
import type { Kernel } from "@crm/core"
import type * as Layer from "effect/Layer"
import * as Analytics from "./AnalyticsContract.js"
import type { ContractOptions } from "./ContractCases.js"
import * as Health from "./HealthContract.js"
import * as Inventory from "./InventoryContract.js"
import * as Notes from "./NotesContract.js"
import * as Orders from "./OrdersContract.js"
import * as Records from "./RecordsContract.js"
import * as ServiceEntities from "./ServiceEntitiesContract.js"
import * as Sites from "./SitesContract.js"
import * as Storage from "./StorageContract.js"
import * as Webhooks from "./WebhooksContract.js"

export type { ContractOptions } from "./ContractCases.js"

type Suite = (
  name: string,
  makeLayer: () => Layer.Layer<Kernel.StoragePorts, unknown>,
  options?: ContractOptions
) => void

/**
 * The suites, one per group of ports, in the order `runStorageContract` registers them. `core`
 * holds contacts, companies, deals, tasks, quotes, invoices, numbering, units of work, events,
 * idempotency, rate limits and access.
 */
export const suites = {
  core: Storage.suite,
  analytics: Analytics.suite,
  health: Health.suite,
  inventory: Inventory.suite,
  notes: Notes.suite,
  orders: Orders.suite,
  records: Records.suite,
  serviceEntities: ServiceEntities.suite,
  sites: Sites.suite,
  webhooks: Webhooks.suite
} satisfies Record<string, Suite>

export type SuiteName = keyof typeof suites

export interface StorageContractOptions extends ContractOptions {
  /**
   * Only these suites (default: all). Vitest runs test files in parallel, not the cases of one
   * file, so a slow store may split the contract over several files.
   */
  readonly suites?: ReadonlyArray<SuiteName>
}

/** Registers the storage contract's cases for the adapter `name`, each on a fresh `makeLayer()`. */
export const runStorageContract = (
  name: string,
  makeLayer: () => Layer.Layer<Kernel.StoragePorts, unknown>,
  options: StorageContractOptions = {}
): void => {
  const { suites: only, ...caseOptions } = options
  for (const [suite, register] of Object.entries(suites) as Array<[SuiteName, Suite]>) {
    if (only === undefined || only.includes(suite)) register(name, makeLayer, caseOptions)
  }
}
