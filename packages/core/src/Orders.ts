/**
 * Orders from the organisation's shop and connected webshops: priced lines, a buyer contact, a
 * number from the order series, fulfilment and payment machines, and the buyer mailed on shipping.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { z } from "zod"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import type { Contact } from "./Contacts/ContactSchemas.js"
import { Contacts } from "./Contacts.js"
import { Cursors } from "./Cursors.js"
import { DealRepository } from "./Deals/DealRepository.js"
import type {
  EmailAlreadyExists,
  InsufficientStock,
  NotFound,
  OrderAlreadyExists,
  PlanRefused,
  StockNotTracked,
  StorageError,
  TransitionNotAllowed,
  ValidationFailed,
  VariantRequired
} from "./Errors.js"
import { payloadOf } from "./Events/EventCatalogue.js"
import { EventLog, type NewEvent } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { Inventory } from "./Inventory.js"
import { NumberSequence } from "./Invoicing/NumberSequence.js"
import { nextNumber } from "./internal/documentNumbers.js"
import { operation } from "./internal/operation.js"
import { nowIso, orNotFound, requireLink } from "./internal/records.js"
import { findOrCreateContact } from "./Leads/ContactMatch.js"
import { Mailer } from "./Mail.js"
import * as Fulfilment from "./Orders/Fulfilment.js"
import { OrderId } from "./Orders/OrderIds.js"
import { OrderRepository } from "./Orders/OrderRepository.js"
import { Order, type OrderCreate, type OrderLine, type OrderListQuery, type OrderPatch } from "./Orders/OrderSchemas.js"
import * as PaymentStatus from "./Orders/PaymentStatus.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import { priceDocument } from "./Pricing/LinePrice.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import type { PageResult } from "./Wire.js"

export * as Fulfilment from "./Orders/Fulfilment.js"
export * from "./Orders/OrderRepository.js"
export * from "./Orders/OrderSchemas.js"
export * as PaymentStatus from "./Orders/PaymentStatus.js"

type Create = z.output<typeof OrderCreate>
type Patch = z.output<typeof OrderPatch>
type StockError = InsufficientStock | StockNotTracked | VariantRequired

export class Orders extends Context.Tag("@crm/core/Orders")<
  Orders,
  {
    /** `POST /orders`: takes tracked stock, finds or creates the buyer, emits `webshop.order`. */
    readonly create: (
      organisation: Organisation,
      input: Create,
      actor: Actor
    ) => Effect.Effect<
      Order,
      ValidationFailed | OrderAlreadyExists | EmailAlreadyExists | PlanRefused | StockError | StorageError
    >
    readonly get: (organisation: Organisation, id: OrderId) => Effect.Effect<Order, NotFound | StorageError>
    /** Payment status first, then fulfilment, in one unit of work. */
    readonly update: (
      organisation: Organisation,
      id: OrderId,
      patch: Patch,
      actor: Actor
    ) => Effect.Effect<Order, NotFound | TransitionNotAllowed | ValidationFailed | StockError | StorageError>
    readonly list: (
      organisation: Organisation,
      query: OrderListQuery
    ) => Effect.Effect<PageResult<Order>, ValidationFailed | StorageError>
  }
>() {}

const WEBSHOP_FIELDS = ["order_id", "external_id", "contact_id", "deal_id", "total", "currency"] as const
const PAID_FIELDS = ["id", "order_number", "amount", "currency", "provider"] as const
// The payloads name some of the order's fields otherwise.
const webshopPayload = payloadOf(Order.extend({ order_id: Order.shape.id }), WEBSHOP_FIELDS)
const paidPayload = payloadOf(
  Order.extend({ amount: Order.shape.total, provider: Order.shape.payment_method }),
  PAID_FIELDS
)

const webshopEvent = (order: Order): NewEvent => ({
  event: "webshop.order",
  data: webshopPayload({ ...order, order_id: order.id })
})

/** The provider of `order.paid` is the order's payment method (card, cod, transfer or null). */
const paidEvent = (order: Order): NewEvent => ({
  event: "order.paid",
  data: paidPayload({ ...order, amount: order.total, provider: order.payment_method })
})

const shippedMail = (organisation: Organisation, order: Order, buyer: Contact & { readonly email: string }) => ({
  to: buyer.email,
  subject: `Your order ${order.order_number} has shipped`,
  body: [
    `Hello${buyer.first_name === null ? "" : ` ${buyer.first_name}`},`,
    "",
    `your order ${order.order_number} from ${organisation.name} is on its way.`,
    `Track it here: ${order.tracking_url}`,
    ""
  ].join("\n")
})

const hasEmail = (contact: Contact): contact is Contact & { readonly email: string } => contact.email !== null

/** The buyer as the contact match takes it: a new contact is a customer who came from the webshop. */
const buyerDetails = (buyer: NonNullable<Create["buyer"]>) => ({
  email: buyer.email,
  ...(buyer.first_name != null ? { first_name: buyer.first_name } : {}),
  ...(buyer.last_name != null ? { last_name: buyer.last_name } : {}),
  status: "customer" as const,
  source: "webshop",
  custom: {}
})

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* OrderRepository
  const cursors = yield* Cursors
  const contactRepo = yield* ContactRepository
  const contacts = yield* Contacts
  const deals = yield* DealRepository
  const sequence = yield* NumberSequence
  const inventory = yield* Inventory
  const mailer = yield* Mailer
  const events = yield* EventLog
  const tx = yield* Transaction

  const findBuyer = findOrCreateContact(contacts, contactRepo)
  const find = (organisationId: OrganisationId, id: OrderId) => repo.get(organisationId, id).pipe(orNotFound("order"))
  const lock = (organisationId: OrganisationId, id: OrderId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("order"))

  const mailBuyer = (organisation: Organisation, order: Order) =>
    Effect.flatMap(contactRepo.get(organisation.id, order.contact_id), (buyer) =>
      // A buyer without an address (or archived since) cannot be mailed; the order moves anyway.
      Option.isSome(buyer) && hasEmail(buyer.value)
        ? Effect.asVoid(mailer.send(organisation.id, shippedMail(organisation, order, buyer.value)))
        : Effect.void
    )

  return Orders.of({
    create: operation("Orders.create")(function* (organisation, input, actor) {
      return yield* tx.run(
        Effect.gen(function* () {
          yield* requireLink("contact_id", input.contact_id, (id) => contactRepo.get(organisation.id, id))
          yield* requireLink("deal_id", input.deal_id, (id) => deals.get(organisation.id, id))
          const now = yield* nowIso
          const id = brand(OrderId, ids.next())
          const currency = input.currency ?? organisation.settings.default_currency
          const priced = priceDocument(
            input.items.map((line) => ({
              product_id: line.product_id ?? null,
              variant_id: line.variant_id ?? null,
              name: line.name,
              quantity: line.quantity,
              unit_price: line.unit_price,
              vat_rate: line.vat_rate
            })),
            currency
          )
          const lines = priced.lines
          const orderNumber = yield* nextNumber(sequence, organisation, "order")
          const contactId =
            input.buyer === undefined
              ? input.contact_id!
              : (yield* findBuyer(organisation, buyerDetails(input.buyer), actor)).contactId
          const placed: Order = {
            id,
            order_number: orderNumber,
            external_id: input.external_id,
            fulfilment: "new",
            payment_status: input.payment_status ?? "none",
            payment_method: input.payment_method ?? null,
            currency,
            items: lines.map((line) => ({ ...line, stock_taken: false })),
            subtotal: priced.subtotal,
            vat_total: priced.vat_total,
            total: priced.total,
            vat_summary: priced.vat_summary.map((row) => ({ ...row })),
            tracking_url: null,
            contact_id: contactId,
            deal_id: input.deal_id ?? null,
            created_at: now,
            updated_at: now
          }
          // The order is written before the sale, so that a repeated external_id is answered as
          // such (naming the order that holds it) even when the first sale left too little stock.
          yield* repo.insert(organisation.id, placed)
          const taken = yield* inventory.moveForDocument(organisation, lines, "sale", {
            orderId: id,
            keyId: actor.keyId,
            at: now
          })
          const items = lines.map((line, i): OrderLine => ({ ...line, stock_taken: taken[i] }))
          const order: Order = { ...placed, items }
          if (items.some((line) => line.stock_taken)) yield* repo.update(organisation.id, order)
          yield* events.append(
            organisation.id,
            [webshopEvent(order), ...(PaymentStatus.becamePaid(null, order.payment_status) ? [paidEvent(order)] : [])],
            now
          )
          return order
        })
      )
    }),
    get: (organisation, id) => find(organisation.id, id),
    update: operation("Orders.update")(function* (organisation, id, patch, actor) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          const payment =
            patch.payment_status === undefined
              ? current.payment_status
              : yield* PaymentStatus.transition(current.payment_status, patch.payment_status)
          const trackingUrl = patch.tracking_url ?? current.tracking_url
          const fulfilment =
            patch.fulfilment === undefined
              ? current.fulfilment
              : yield* Fulfilment.transition(current.fulfilment, patch.fulfilment, {
                  payment_status: payment,
                  tracking_url: trackingUrl
                })
          const moved = fulfilment !== current.fulfilment
          const now = yield* nowIso
          const order: Order = {
            ...current,
            payment_status: payment,
            fulfilment,
            tracking_url: trackingUrl,
            updated_at: now
          }
          if (moved && Fulfilment.returnsStock(fulfilment)) {
            // What the sale took comes back; a line that took nothing gives nothing back.
            yield* inventory.moveForDocument(
              organisation,
              order.items.map((line) => (line.stock_taken ? line : { ...line, product_id: null })),
              "cancel",
              { orderId: order.id, keyId: actor.keyId, at: now }
            )
          }
          yield* repo.update(organisation.id, order)
          if (moved && Fulfilment.mailsBuyer(fulfilment)) yield* mailBuyer(organisation, order)
          if (PaymentStatus.becamePaid(current.payment_status, payment)) {
            yield* events.append(organisation.id, [paidEvent(order)], now)
          }
          return order
        })
      )
    }),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "orders" }, query, (page) =>
        repo.list(
          organisation.id,
          {
            ...(query.fulfilment !== undefined ? { fulfilment: query.fulfilment } : {}),
            ...(query.payment_status !== undefined ? { paymentStatus: query.payment_status } : {}),
            ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {})
          },
          page
        )
      )
  })
})

export const layer = Layer.effect(Orders, make)
