/** The in-process reference implementation of every storage port of `@crm/core`. */
import {
  Access,
  Companies,
  Contacts,
  Deals,
  Events,
  Idempotency,
  Invoicing,
  type Kernel,
  Quotes,
  Tasks,
  Transaction
} from "@crm/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AccessRepository from "./AccessRepository.js"
import * as CompanyRepository from "./CompanyRepository.js"
import * as ContactRepository from "./ContactRepository.js"
import * as DealRepository from "./DealRepository.js"
import * as EventLog from "./EventLog.js"
import * as ExchangeRates from "./ExchangeRates.js"
import * as IdempotencyStore from "./IdempotencyStore.js"
import * as InvoiceRepository from "./InvoiceRepository.js"
import * as Store from "./internal/Store.js"
import * as NumberSequence from "./NumberSequence.js"
import * as QuoteRepository from "./QuoteRepository.js"
import * as RateLimiter from "./RateLimiter.js"
import * as TaskRepository from "./TaskRepository.js"
import * as MemoryTransaction from "./Transaction.js"

export type Ports = Kernel.StoragePorts

/** A new, empty store with every port over it. */
export const make: Effect.Effect<Context.Context<Ports>> = Effect.map(Store.make, (store) =>
  Context.make(Transaction.Transaction, MemoryTransaction.make(store)).pipe(
    Context.add(Access.AccessRepository, AccessRepository.make(store)),
    Context.add(Access.RateLimiter, RateLimiter.make(store)),
    Context.add(Idempotency.IdempotencyStore, IdempotencyStore.make(store)),
    Context.add(Events.EventLog, EventLog.make(store)),
    Context.add(Contacts.ContactRepository, ContactRepository.make(store)),
    Context.add(Companies.CompanyRepository, CompanyRepository.make(store)),
    Context.add(Deals.DealRepository, DealRepository.make(store)),
    Context.add(Tasks.TaskRepository, TaskRepository.make(store)),
    Context.add(Quotes.QuoteRepository, QuoteRepository.make(store)),
    Context.add(Invoicing.InvoiceRepository, InvoiceRepository.make(store)),
    Context.add(Invoicing.NumberSequence, NumberSequence.make(store)),
    Context.add(Invoicing.ExchangeRates, ExchangeRates.make(store))
  )
)

/** Every port over one store; each time the layer is built it starts empty. */
export const layer: Layer.Layer<Ports> = Layer.effectContext(make)
