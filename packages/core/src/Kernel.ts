/** Every service of the kernel in one layer: an adapter's `layer` satisfies what it needs. */
import type * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Access from "./Access.js"
import { ActivityContext } from "./Activity/ActivityContext.js"
import { AnalyticsContext } from "./Analytics/AnalyticsContext.js"
import * as Batch from "./Batch.js"
import { BookingsContext } from "./Bookings/BookingsContext.js"
import { BusinessClockContext } from "./BusinessClock/BusinessClockContext.js"
import { CallsContext } from "./Calls/CallsContext.js"
import { CompaniesContext } from "./Companies/CompaniesContext.js"
import { ContactsContext } from "./Contacts/ContactsContext.js"
import * as Cursors from "./Cursors.js"
import { DealsContext } from "./Deals/DealsContext.js"
import { EventsContext } from "./Events/EventsContext.js"
import { FormsContext } from "./Forms/FormsContext.js"
import { HealthContext } from "./Health/HealthContext.js"
import * as Idempotency from "./Idempotency.js"
import * as Import from "./Import.js"
import { InventoryContext } from "./Inventory/InventoryContext.js"
import { InvoicingContext } from "./Invoicing/InvoicingContext.js"
import { mergeContexts } from "./internal/defineContext.js"
import { LeadsContext } from "./Leads/LeadsContext.js"
import { LinkPagesContext } from "./LinkPages/LinkPagesContext.js"
import { MailContext } from "./Mail/MailContext.js"
import { NotesContext } from "./Notes/NotesContext.js"
import { OrdersContext } from "./Orders/OrdersContext.js"
import type { AuditLog } from "./People/AuditLog.js"
import type { PeopleRepository } from "./People/PeopleRepository.js"
import { PurchaseOrdersContext } from "./PurchaseOrders/PurchaseOrdersContext.js"
import { QuotesContext } from "./Quotes/QuotesContext.js"
import { RecordsContext } from "./Records/RecordsContext.js"
import { ReturnsContext } from "./Returns/ReturnsContext.js"
import { SearchContext } from "./Search/SearchContext.js"
import { SitesContext } from "./Sites/SitesContext.js"
import { SurveysContext } from "./Surveys/SurveysContext.js"
import { TasksContext } from "./Tasks/TasksContext.js"
import { TicketsContext } from "./Tickets/TicketsContext.js"
import { TransferContext } from "./Transfer/TransferContext.js"
import { VisitsContext } from "./Visits/VisitsContext.js"
import type { WebhookRepository } from "./Webhooks/WebhookRepository.js"

/**
 * The bounded contexts: each declares its service and how it is built in its own folder
 * (`<Context>/<Context>Context.ts`), so that a new context joins the kernel here, in one line.
 */
const contexts = [
  ActivityContext,
  AnalyticsContext,
  BookingsContext,
  BusinessClockContext,
  CallsContext,
  CompaniesContext,
  ContactsContext,
  DealsContext,
  EventsContext,
  FormsContext,
  HealthContext,
  InventoryContext,
  InvoicingContext,
  LeadsContext,
  LinkPagesContext,
  MailContext,
  NotesContext,
  OrdersContext,
  PurchaseOrdersContext,
  QuotesContext,
  RecordsContext,
  ReturnsContext,
  SearchContext,
  SitesContext,
  SurveysContext,
  TasksContext,
  TicketsContext,
  TransferContext,
  VisitsContext
] as const

/**
 * Every storage port the kernel needs: what each adapter's aggregate layer provides. Read off the
 * services' layer, so that a context's ports join when the context joins `contexts` above. The
 * webhook repository and the people's ports (accounts, the audit trail) are named here because
 * the `Webhooks` and `People` services are composed by the server, outside the kernel.
 */
export type StoragePorts =
  | Layer.Layer.Context<ReturnType<typeof layerWith>>
  | WebhookRepository
  | PeopleRepository
  | AuditLog

export interface KernelOptions {
  /** Requests per key per rolling minute; the contract's 120 unless an operator says otherwise. */
  readonly rateLimit: number
}

/**
 * The contexts and the kernel's own services (access, which takes the options, batches and
 * idempotency), but not the import, which runs their operations. One `Cursors` under them all, so
 * that the process reads the cursor secret once.
 */
const services = (options: KernelOptions) =>
  Layer.mergeAll(Access.layerWith(options), Batch.layer, Idempotency.layer, mergeContexts(contexts)).pipe(
    Layer.provide(Cursors.layer)
  )

export const layerWith = (options: KernelOptions) => Import.layer.pipe(Layer.provideMerge(services(options)))

export const layer = layerWith({ rateLimit: Access.RATE_LIMIT })

/** Every service the kernel provides: what a transport's handlers may call. */
export type Services = Layer.Layer.Success<ReturnType<typeof layerWith>>

/**
 * The tags of `Services`, for a transport that runs its requests with only what its handlers may
 * call: every span, scope and transaction copies the request's context, so a context of the
 * services alone, without the storage ports under them, keeps each copy small.
 */
export const serviceTags = [
  Access.Access,
  Batch.Batches,
  Idempotency.Idempotency,
  Import.Import,
  ...contexts.map((context) => context.tag)
]

type Listed = Context.Tag.Identifier<(typeof serviceTags)[number]>
// Does not compile when a service joins the layer but not this list, or the other way round.
const listsEveryService: [Services] extends [Listed] ? ([Listed] extends [Services] ? true : never) : never = true
void listsEveryService
// Does not compile when a context calls another's service without providing it in its definition:
// the service would otherwise be asked of the storage adapters.
const providesEveryService: [Extract<StoragePorts, Listed>] extends [never] ? true : never = true
void providesEveryService
