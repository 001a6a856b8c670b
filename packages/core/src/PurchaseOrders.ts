/** Purchase orders: goods ordered from a supplier, received in one or more deliveries. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import { Cursors } from "./Cursors.js"
import type { NotFound, StorageError, TransitionNotAllowed, ValidationFailed, VariantRequired } from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { goodsIn, Inventory } from "./Inventory.js"
import { NumberSequence } from "./Invoicing/NumberSequence.js"
import { nextNumber } from "./internal/documentNumbers.js"
import { operation } from "./internal/operation.js"
import { nowIso, orNotFound } from "./internal/records.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import { PurchaseOrderId, PurchaseOrderLineId } from "./PurchaseOrders/PurchaseOrderIds.js"
import { PurchaseOrderRepository } from "./PurchaseOrders/PurchaseOrderRepository.js"
import type {
  PurchaseOrder,
  PurchaseOrderCreate,
  PurchaseOrderListQuery,
  PurchaseOrderReceipt,
  PurchaseOrderStatus as Status
} from "./PurchaseOrders/PurchaseOrderSchemas.js"
import * as PurchaseOrderStatus from "./PurchaseOrders/PurchaseOrderStatus.js"
import type { Actor } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import type { PageResult } from "./Wire.js"

export * from "./PurchaseOrders/PurchaseOrderRepository.js"
export * from "./PurchaseOrders/PurchaseOrderSchemas.js"
// Not `PurchaseOrderStatus`: that is the schema of the status (from the schemas), which this name would hide.
export * as PurchaseOrderStates from "./PurchaseOrders/PurchaseOrderStatus.js"

type Move = Effect.Effect<PurchaseOrder, NotFound | TransitionNotAllowed | StorageError>

export class PurchaseOrders extends Context.Tag("@crm/core/PurchaseOrders")<
  PurchaseOrders,
  {
    /**
     * A draft, numbered from the `purchase_order` series. A line's product must be one of the
     * organisation's, with one of its variants when it is sold in variants.
     */
    readonly create: (
      organisation: Organisation,
      input: z.output<typeof PurchaseOrderCreate>
    ) => Effect.Effect<PurchaseOrder, ValidationFailed | VariantRequired | StorageError>
    readonly get: (
      organisation: Organisation,
      id: PurchaseOrderId
    ) => Effect.Effect<PurchaseOrder, NotFound | StorageError>
    /** draft → ordered: sent to the supplier. */
    readonly order: (organisation: Organisation, id: PurchaseOrderId) => Move
    /**
     * Records a delivery: partial while units are missing, received when the last arrives, which
     * emits `purchase_order.received`. The units of lines with a product enter its tracked stock
     * through the ledger (as `receipt` movements), in the same unit of work.
     */
    readonly receive: (
      organisation: Organisation,
      id: PurchaseOrderId,
      receipt: PurchaseOrderReceipt,
      actor: Actor
    ) => Effect.Effect<
      PurchaseOrder,
      NotFound | TransitionNotAllowed | ValidationFailed | VariantRequired | StorageError
    >
    readonly cancel: (organisation: Organisation, id: PurchaseOrderId) => Move
    readonly list: (
      organisation: Organisation,
      query: PurchaseOrderListQuery
    ) => Effect.Effect<PageResult<PurchaseOrder>, ValidationFailed | StorageError>
  }
>() {}

const RECEIVED_FIELDS = ["id", "number"] as const

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* PurchaseOrderRepository
  const cursors = yield* Cursors
  const sequence = yield* NumberSequence
  const events = yield* EventLog
  const inventory = yield* Inventory
  const tx = yield* Transaction

  const find = (organisationId: OrganisationId, id: PurchaseOrderId) =>
    repo.get(organisationId, id).pipe(orNotFound("purchase order"))
  const lock = (organisationId: OrganisationId, id: PurchaseOrderId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("purchase order"))

  /** A move that changes nothing but the status (and the stamp `ordered` sets). */
  const move = (organisation: Organisation, id: PurchaseOrderId, to: Status) =>
    tx.run(
      Effect.gen(function* () {
        const current = yield* lock(organisation.id, id)
        const status = yield* PurchaseOrderStatus.transition(current.status, to)
        const now = yield* nowIso
        const next: PurchaseOrder = {
          ...current,
          status,
          ordered_at: status === "ordered" ? now : current.ordered_at,
          updated_at: now
        }
        yield* repo.update(organisation.id, next)
        return next
      })
    )

  return PurchaseOrders.of({
    create: operation("PurchaseOrders.create")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const lines = input.items.map((item) => ({
            product_id: item.product_id ?? null,
            variant_id: item.variant_id ?? null
          }))
          yield* inventory.checkLines(organisation, lines)
          const now = yield* nowIso
          const order: PurchaseOrder = {
            id: brand(PurchaseOrderId, ids.next()),
            number: yield* nextNumber(sequence, organisation, "purchase_order"),
            supplier: input.supplier,
            status: "draft",
            items: input.items.map((item, index) => ({
              id: brand(PurchaseOrderLineId, ids.next()),
              ...lines[index]!,
              name: item.name,
              quantity: item.quantity,
              received_quantity: 0
            })),
            note: input.note ?? null,
            ordered_at: null,
            received_at: null,
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, order)
          return order
        })
      )
    }),
    get: (organisation, id) => find(organisation.id, id),
    order: operation("PurchaseOrders.order")((organisation, id) => move(organisation, id, "ordered")),
    cancel: operation("PurchaseOrders.cancel")((organisation, id) => move(organisation, id, "cancelled")),
    receive: operation("PurchaseOrders.receive")(function* (organisation, id, receipt, actor) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          const { items, status } = yield* PurchaseOrderStatus.receive(current.status, current.items, receipt)
          const now = yield* nowIso
          // One line per entry of the receipt, so that a refusal names the entry.
          yield* goodsIn(
            inventory.moveForDocument(
              organisation,
              receipt.items.map((entry) => {
                const line = current.items.find((candidate) => candidate.id === entry.line_id)!
                return { product_id: line.product_id, variant_id: line.variant_id, quantity: entry.quantity }
              }),
              "receipt",
              { purchaseOrderId: current.id, keyId: actor.keyId, at: now }
            )
          )
          const next: PurchaseOrder = {
            ...current,
            items: [...items],
            status,
            received_at: status === "received" ? now : null,
            updated_at: now
          }
          yield* repo.update(organisation.id, next)
          if (status === "received") {
            yield* events.append(
              organisation.id,
              [{ event: "purchase_order.received", data: pick(next, RECEIVED_FIELDS) }],
              now
            )
          }
          return next
        })
      )
    }),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "purchase_orders" }, query, (page) =>
        repo.list(organisation.id, query.status !== undefined ? { status: query.status } : {}, page)
      )
  })
})

export const layer = Layer.effect(PurchaseOrders, make)
