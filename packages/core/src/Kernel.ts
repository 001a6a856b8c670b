/** Every service of the kernel in one layer: an adapter's `layer` satisfies what it needs. */
import type * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Access from "./Access.js"
import * as Activity from "./Activity.js"
import * as Analytics from "./Analytics.js"
import * as Batch from "./Batch.js"
import * as Bookings from "./Bookings.js"
import * as BusinessClock from "./BusinessClock.js"
import * as Calls from "./Calls.js"
import * as Companies from "./Companies.js"
import * as Contacts from "./Contacts.js"
import * as Cursors from "./Cursors.js"
import * as Playbooks from "./Deals/Playbooks.js"
import * as Deals from "./Deals.js"
import * as Events from "./Events.js"
import * as Forms from "./Forms.js"
import * as Health from "./Health.js"
import * as Idempotency from "./Idempotency.js"
import * as Import from "./Import.js"
import * as Inventory from "./Inventory.js"
import * as Invoicing from "./Invoicing.js"
import * as Leads from "./Leads.js"
import * as LinkPages from "./LinkPages.js"
import * as Mail from "./Mail.js"
import * as Notes from "./Notes.js"
import * as Orders from "./Orders.js"
import * as PurchaseOrders from "./PurchaseOrders.js"
import * as Quotes from "./Quotes.js"
import * as Records from "./Records.js"
import * as Returns from "./Returns.js"
import * as Search from "./Search.js"
import * as Sites from "./Sites.js"
import * as Surveys from "./Surveys.js"
import * as Tasks from "./Tasks.js"
import * as Tickets from "./Tickets.js"
import * as Transfer from "./Transfer.js"
import * as Visits from "./Visits.js"
import type { WebhookRepository } from "./Webhooks/WebhookRepository.js"

/**
 * Every storage port the kernel needs: what each adapter's aggregate layer provides. Read off the
 * services' layer, so that a context's ports join when its service joins `services` below. The
 * webhook repository is named here because the `Webhooks` service needs an HTTP sender and is
 * composed by the server, outside the kernel.
 */
export type StoragePorts = Layer.Layer.Context<ReturnType<typeof layerWith>> | WebhookRepository

export interface KernelOptions {
  /** Requests per key per rolling minute; the contract's 120 unless an operator says otherwise. */
  readonly rateLimit: number
}

/** Deals publish stage entries to the playbook consumer, which creates tasks through `Tasks`, and mail owners on a close. */
const dealsWithPlaybooks = Deals.layer.pipe(
  Layer.provide(Playbooks.layer),
  Layer.provide(Tasks.layer),
  Layer.provide(Mail.layer)
)

/**
 * Every service but the import, which runs their operations. One `Cursors` under them all, so that
 * the process reads the cursor secret once.
 */
const services = (options: KernelOptions) =>
  Layer.mergeAll(
    Access.layerWith(options),
    Analytics.layer,
    Companies.layer,
    Contacts.layer,
    dealsWithPlaybooks,
    Tasks.layer,
    Quotes.layer.pipe(Layer.provide(Invoicing.layer)),
    Invoicing.layer,
    // Moving a test clock runs the date jobs of `Quotes` and `Invoicing` that fell due.
    BusinessClock.layer.pipe(
      Layer.provide(Quotes.layer.pipe(Layer.provide(Invoicing.layer))),
      Layer.provide(Invoicing.layer)
    ),
    Events.layer,
    Batch.layer,
    Idempotency.layer,
    // A ticket reply mails the requester through the Mailer.
    Tickets.layer.pipe(Layer.provide(Mail.layer)),
    // Received returns and purchase-order receipts bring goods into stock through `Inventory`.
    Returns.layer.pipe(Layer.provide(Inventory.layer)),
    PurchaseOrders.layer.pipe(Layer.provide(Inventory.layer)),
    Surveys.layer,
    Calls.layer,
    Inventory.layer,
    Mail.layer,
    // Orders take stock through `Inventory`, create buyers through `Contacts` and mail through the Mailer.
    Orders.layer.pipe(Layer.provide(Inventory.layer), Layer.provide(Contacts.layer), Layer.provide(Mail.layer)),
    Records.layer,
    // Submissions and leads create their contacts through `Contacts`, with its rules and event.
    Forms.layer.pipe(Layer.provide(Contacts.layer)),
    Health.layer,
    Leads.layer.pipe(Layer.provide(Contacts.layer)),
    Visits.layer,
    Search.layer,
    Sites.layer,
    Bookings.layer,
    LinkPages.layer,
    // A call note logs its call through `Calls`, with its event.
    Notes.layer.pipe(Layer.provide(Calls.layer)),
    Activity.layer,
    Transfer.layer
  ).pipe(Layer.provide(Cursors.layer))

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
  Activity.Activity,
  Analytics.Analytics,
  Batch.Batches,
  Bookings.Bookings,
  BusinessClock.BusinessClock,
  Calls.Calls,
  Companies.Companies,
  Contacts.Contacts,
  Deals.Deals,
  Events.Events,
  Forms.Forms,
  Health.Health,
  Idempotency.Idempotency,
  Import.Import,
  Inventory.Inventory,
  Invoicing.Invoicing,
  Leads.Leads,
  LinkPages.LinkPages,
  Mail.Mailer,
  Notes.Notes,
  Orders.Orders,
  PurchaseOrders.PurchaseOrders,
  Quotes.Quotes,
  Records.Records,
  Returns.Returns,
  Search.Search,
  Sites.Sites,
  Surveys.Surveys,
  Tasks.Tasks,
  Tickets.Tickets,
  Transfer.Transfer,
  Visits.Visits
] as const

type Listed = Context.Tag.Identifier<(typeof serviceTags)[number]>
// Does not compile when a service joins the layer but not this list, or the other way round.
const listsEveryService: [Services] extends [Listed] ? ([Listed] extends [Services] ? true : never) : never = true
void listsEveryService
