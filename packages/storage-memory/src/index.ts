/** The in-process reference implementation of every storage port of `@crm/core`. */
import {
  Access,
  Bookings,
  Calls,
  Companies,
  Contacts,
  Cursors,
  Deals,
  Events,
  Forms,
  Health,
  Idempotency,
  Inventory,
  Invoicing,
  type Kernel,
  Leads,
  LinkPages,
  Mail,
  Notes,
  Orders,
  People,
  PurchaseOrders,
  Quotes,
  Records,
  Returns,
  Sites,
  Surveys,
  Tasks,
  Tickets,
  Transaction,
  Transfer,
  Visits,
  Webhooks
} from "@crm/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AccessRepository from "./AccessRepository.js"
import * as AuditLog from "./AuditLog.js"
import * as BookingRepository from "./BookingRepository.js"
import * as CallRepository from "./CallRepository.js"
import * as CompanyRepository from "./CompanyRepository.js"
import * as ContactRepository from "./ContactRepository.js"
import * as CursorSecret from "./CursorSecret.js"
import * as DealRepository from "./DealRepository.js"
import * as EventLog from "./EventLog.js"
import * as ExchangeRates from "./ExchangeRates.js"
import * as FormSubmissionRepository from "./FormSubmissionRepository.js"
import * as IdempotencyStore from "./IdempotencyStore.js"
import * as InvoiceRepository from "./InvoiceRepository.js"
import * as Store from "./internal/Store.js"
import * as LeadRepository from "./LeadRepository.js"
import * as LinkPageRepository from "./LinkPageRepository.js"
import * as MailOutbox from "./MailOutbox.js"
import * as NoteRepository from "./NoteRepository.js"
import * as NumberSequence from "./NumberSequence.js"
import * as OAuthStore from "./OAuthStore.js"
import * as OrderRepository from "./OrderRepository.js"
import * as PeopleRepository from "./PeopleRepository.js"
import * as ProductRepository from "./ProductRepository.js"
import * as PurchaseOrderRepository from "./PurchaseOrderRepository.js"
import * as QuoteRepository from "./QuoteRepository.js"
import * as RateLimiter from "./RateLimiter.js"
import * as RecordRepository from "./RecordRepository.js"
import * as ReturnRepository from "./ReturnRepository.js"
import * as SiteRepository from "./SiteRepository.js"
import * as StockLedgerStore from "./StockLedgerStore.js"
import * as StoreGauges from "./StoreGauges.js"
import * as StoreProbe from "./StoreProbe.js"
import * as SurveyResponseRepository from "./SurveyResponseRepository.js"
import * as TaskRepository from "./TaskRepository.js"
import * as TicketRepository from "./TicketRepository.js"
import * as MemoryTransaction from "./Transaction.js"
import * as TransferStore from "./TransferStore.js"
import * as VisitRepository from "./VisitRepository.js"
import * as WebhookRepository from "./WebhookRepository.js"

export type Ports = Kernel.StoragePorts

/** A new, empty store with every port over it. */
export const make: Effect.Effect<Context.Context<Ports>> = Effect.map(Store.make, (store) =>
  Context.make(Transaction.Transaction, MemoryTransaction.make(store))
    .pipe(
      Context.add(Access.AccessRepository, AccessRepository.make(store)),
      Context.add(Access.RateLimiter, RateLimiter.make(store)),
      Context.add(Idempotency.IdempotencyStore, IdempotencyStore.make(store)),
      Context.add(Events.EventLog, EventLog.make(store)),
      Context.add(Contacts.ContactRepository, ContactRepository.make(store)),
      Context.add(Companies.CompanyRepository, CompanyRepository.make(store)),
      Context.add(Deals.DealRepository, DealRepository.make(store)),
      Context.add(Tasks.TaskRepository, TaskRepository.make(store)),
      Context.add(Inventory.ProductRepository, ProductRepository.make(store)),
      Context.add(Inventory.StockLedgerStore, StockLedgerStore.make(store)),
      Context.add(Records.RecordRepository, RecordRepository.make(store)),
      Context.add(Forms.FormSubmissionRepository, FormSubmissionRepository.make(store)),
      Context.add(Visits.VisitRepository, VisitRepository.make(store)),
      Context.add(Leads.LeadRepository, LeadRepository.make(store)),
      Context.add(Quotes.QuoteRepository, QuoteRepository.make(store)),
      Context.add(Invoicing.InvoiceRepository, InvoiceRepository.make(store)),
      Context.add(Invoicing.NumberSequence, NumberSequence.make(store)),
      Context.add(Invoicing.ExchangeRates, ExchangeRates.make(store)),
      Context.add(Webhooks.WebhookRepository, WebhookRepository.make(store))
    )
    .pipe(
      // A second pipe: one takes at most twenty steps.
      Context.add(Tickets.TicketRepository, TicketRepository.make(store)),
      Context.add(Returns.ReturnRepository, ReturnRepository.make(store)),
      Context.add(PurchaseOrders.PurchaseOrderRepository, PurchaseOrderRepository.make(store)),
      Context.add(Surveys.SurveyResponseRepository, SurveyResponseRepository.make(store)),
      Context.add(Calls.CallRepository, CallRepository.make(store)),
      Context.add(Orders.OrderRepository, OrderRepository.make(store)),
      Context.add(Mail.MailOutbox, MailOutbox.make(store)),
      Context.add(Notes.NoteRepository, NoteRepository.make(store)),
      Context.add(Sites.SiteRepository, SiteRepository.make(store)),
      Context.add(Bookings.BookingRepository, BookingRepository.make(store)),
      Context.add(LinkPages.LinkPageRepository, LinkPageRepository.make(store)),
      Context.add(Health.StoreProbe, StoreProbe.make()),
      Context.add(Health.StoreGauges, StoreGauges.make(store)),
      Context.add(Transfer.TransferStore, TransferStore.make(store)),
      Context.add(Cursors.CursorSecret, CursorSecret.make(store))
    )
    .pipe(
      Context.add(People.PeopleRepository, PeopleRepository.make(store)),
      Context.add(People.AuditLog, AuditLog.make(store)),
      Context.add(Access.OAuthStore, OAuthStore.make(store))
    )
)

/** Every port over one store; each time the layer is built it starts empty. */
export const layer: Layer.Layer<Ports> = Layer.effectContext(make)
