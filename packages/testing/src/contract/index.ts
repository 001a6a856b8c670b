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
import * as Access from "./AccessContract.js"
import * as Analytics from "./AnalyticsContract.js"
import * as Audit from "./AuditContract.js"
import * as Companies from "./CompaniesContract.js"
import * as Contacts from "./ContactsContract.js"
import type { ContractOptions, Suite } from "./ContractCases.js"
import * as CursorSecret from "./CursorSecretContract.js"
import * as Deals from "./DealsContract.js"
import * as EventLog from "./EventLogContract.js"
import * as ExchangeRates from "./ExchangeRatesContract.js"
import * as Health from "./HealthContract.js"
import * as Idempotency from "./IdempotencyContract.js"
import * as Inventory from "./InventoryContract.js"
import * as Invoices from "./InvoicesContract.js"
import * as Notes from "./NotesContract.js"
import * as NumberSequence from "./NumberSequenceContract.js"
import * as OAuth from "./OAuthContract.js"
import * as Orders from "./OrdersContract.js"
import * as People from "./PeopleContract.js"
import * as Quotes from "./QuotesContract.js"
import * as RateLimiter from "./RateLimiterContract.js"
import * as Records from "./RecordsContract.js"
import * as ServiceEntities from "./ServiceEntitiesContract.js"
import * as Sites from "./SitesContract.js"
import * as Tasks from "./TasksContract.js"
import * as Transaction from "./TransactionContract.js"
import * as Transfer from "./TransferContract.js"
import * as Webhooks from "./WebhooksContract.js"

export type { ContractOptions } from "./ContractCases.js"

/**
 * The suites, in the order `runStorageContract` registers them: one per port, then one per area
 * whose ports are tested together (analytics and health reads, inventory, notes, orders and mail,
 * records, service entities, sites, webhooks), the people of a store with their audit trail, and
 * the MCP authorization server's records.
 */
export const suites = {
  contacts: Contacts.suite,
  companies: Companies.suite,
  deals: Deals.suite,
  tasks: Tasks.suite,
  quotes: Quotes.suite,
  invoices: Invoices.suite,
  numberSequence: NumberSequence.suite,
  exchangeRates: ExchangeRates.suite,
  transaction: Transaction.suite,
  eventLog: EventLog.suite,
  rateLimiter: RateLimiter.suite,
  idempotency: Idempotency.suite,
  access: Access.suite,
  analytics: Analytics.suite,
  health: Health.suite,
  inventory: Inventory.suite,
  notes: Notes.suite,
  orders: Orders.suite,
  records: Records.suite,
  serviceEntities: ServiceEntities.suite,
  sites: Sites.suite,
  webhooks: Webhooks.suite,
  cursorSecret: CursorSecret.suite,
  transfer: Transfer.suite,
  people: People.suite,
  audit: Audit.suite,
  oauth: OAuth.suite
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
