/** Every service of the kernel in one layer: an adapter's `layer` satisfies what it needs. */
import * as Layer from "effect/Layer"
import type { AccessRepository } from "./Access/AccessRepository.js"
import type { IdempotencyStore } from "./Access/IdempotencyStore.js"
import type { RateLimiter } from "./Access/RateLimiter.js"
import * as Access from "./Access.js"
import type { CompanyRepository } from "./Companies/CompanyRepository.js"
import * as Companies from "./Companies.js"
import type { ContactRepository } from "./Contacts/ContactRepository.js"
import * as Contacts from "./Contacts.js"
import type { DealRepository } from "./Deals/DealRepository.js"
import * as Playbooks from "./Deals/Playbooks.js"
import * as Deals from "./Deals.js"
import type { EventLog } from "./Events/EventLog.js"
import * as Events from "./Events.js"
import * as Idempotency from "./Idempotency.js"
import type { ExchangeRates } from "./Invoicing/ExchangeRates.js"
import type { InvoiceRepository } from "./Invoicing/InvoiceRepository.js"
import type { NumberSequence } from "./Invoicing/NumberSequence.js"
import * as Invoicing from "./Invoicing.js"
import type { QuoteRepository } from "./Quotes/QuoteRepository.js"
import * as Quotes from "./Quotes.js"
import type { TaskRepository } from "./Tasks/TaskRepository.js"
import * as Tasks from "./Tasks.js"
import type { Transaction } from "./Transaction.js"

/** Every storage port the kernel needs: what each adapter's aggregate layer provides. */
export type StoragePorts =
  | Transaction
  | AccessRepository
  | RateLimiter
  | IdempotencyStore
  | EventLog
  | ContactRepository
  | CompanyRepository
  | DealRepository
  | TaskRepository
  | QuoteRepository
  | InvoiceRepository
  | NumberSequence
  | ExchangeRates

export interface KernelOptions {
  /** Requests per key per rolling minute; the contract's 120 unless an operator says otherwise. */
  readonly rateLimit: number
}

/** Deals publish stage entries to the playbook consumer, which creates tasks through `Tasks`. */
const dealsWithPlaybooks = Deals.layer.pipe(Layer.provide(Playbooks.layer), Layer.provide(Tasks.layer))

export const layerWith = (options: KernelOptions) =>
  Layer.mergeAll(
    Access.layerWith(options),
    Companies.layer,
    Contacts.layer,
    dealsWithPlaybooks,
    Tasks.layer,
    Quotes.layer.pipe(Layer.provide(Invoicing.layer)),
    Invoicing.layer,
    Events.layer,
    Idempotency.layer
  )

export const layer = layerWith({ rateLimit: Access.RATE_LIMIT })
