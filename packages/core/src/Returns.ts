/** Returns (RMAs): goods coming back from an order, numbered, moving through their own status machine. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import { Cursors } from "./Cursors.js"
import type { NotFound, StorageError, TransitionNotAllowed, ValidationFailed } from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { goodsIn, Inventory } from "./Inventory.js"
import { NumberSequence } from "./Invoicing/NumberSequence.js"
import { nextNumber } from "./internal/documentNumbers.js"
import { operation } from "./internal/operation.js"
import { linked, nowIso, orNotFound } from "./internal/records.js"
import { OrderRepository } from "./Orders/OrderRepository.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import type { Actor } from "./Resource.js"
import { ReturnId } from "./Returns/ReturnIds.js"
import * as ReturnLines from "./Returns/ReturnLines.js"
import { ReturnRepository } from "./Returns/ReturnRepository.js"
import type { Return, ReturnCreate, ReturnListQuery, ReturnUpdate } from "./Returns/ReturnSchemas.js"
import * as ReturnStatus from "./Returns/ReturnStatus.js"
import { Transaction } from "./Transaction.js"
import type { PageResult } from "./Wire.js"

export * as ReturnLines from "./Returns/ReturnLines.js"
export * from "./Returns/ReturnRepository.js"
export * from "./Returns/ReturnSchemas.js"
// Not `ReturnStatus`: that is the schema of the status (from the schemas), which this name would hide.
export * as ReturnStates from "./Returns/ReturnStatus.js"

export class Returns extends Context.Tag("@crm/core/Returns")<
  Returns,
  {
    /**
     * A new request for lines of the order (see `ReturnLines`), numbered from the `return` series;
     * emits `return.created`.
     */
    readonly create: (
      organisation: Organisation,
      input: z.output<typeof ReturnCreate>
    ) => Effect.Effect<Return, ValidationFailed | StorageError>
    readonly get: (organisation: Organisation, id: ReturnId) => Effect.Effect<Return, NotFound | StorageError>
    /**
     * A status move; emits `return.updated` when the status changes, nothing when it stays. Goods
     * received go back into tracked stock through the ledger, in the same unit of work.
     */
    readonly update: (
      organisation: Organisation,
      id: ReturnId,
      change: z.output<typeof ReturnUpdate>,
      actor: Actor
    ) => Effect.Effect<Return, NotFound | TransitionNotAllowed | ValidationFailed | StorageError>
    readonly list: (
      organisation: Organisation,
      query: ReturnListQuery
    ) => Effect.Effect<PageResult<Return>, ValidationFailed | StorageError>
  }
>() {}

const CREATED_FIELDS = ["id", "number", "order_id"] as const
const UPDATED_FIELDS = ["id", "status"] as const

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* ReturnRepository
  const cursors = yield* Cursors
  const orders = yield* OrderRepository
  const inventory = yield* Inventory
  const sequence = yield* NumberSequence
  const events = yield* EventLog
  const tx = yield* Transaction

  const find = (organisationId: OrganisationId, id: ReturnId) => repo.get(organisationId, id).pipe(orNotFound("return"))
  const lock = (organisationId: OrganisationId, id: ReturnId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("return"))

  return Returns.of({
    create: operation("Returns.create")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          // Held until commit: two returns of one order are checked one after the other, so both
          // cannot claim the same units.
          const order = yield* linked("order_id", input.order_id, (id) => orders.getForUpdate(organisation.id, id))
          const items = yield* ReturnLines.linesOf(order, yield* repo.ofOrder(organisation.id, order.id), input.items)
          const now = yield* nowIso
          const rma: Return = {
            id: brand(ReturnId, ids.next()),
            number: yield* nextNumber(sequence, organisation, "return"),
            order_id: order.id,
            contact_id: order.contact_id,
            status: "requested",
            reason: input.reason ?? null,
            items: [...items],
            created_at: now,
            updated_at: now
          }
          yield* repo.insert(organisation.id, rma)
          yield* events.append(organisation.id, [{ event: "return.created", data: pick(rma, CREATED_FIELDS) }], now)
          return rma
        })
      )
    }),
    get: (organisation, id) => find(organisation.id, id),
    update: operation("Returns.update")(function* (organisation, id, change, actor) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          if (change.status === current.status) return current
          const status = yield* ReturnStatus.transition(current.status, change.status)
          const now = yield* nowIso
          const rma: Return = { ...current, status, updated_at: now }
          if (status === "received") {
            // The items whose variant is gone since are passed over, so no variant is required either.
            yield* goodsIn(
              inventory.moveForDocument(organisation, rma.items, "return", {
                orderId: rma.order_id,
                returnId: rma.id,
                keyId: actor.keyId,
                at: now
              })
            ).pipe(Effect.catchTag("VariantRequired", Effect.die))
          }
          yield* repo.update(organisation.id, rma)
          yield* events.append(organisation.id, [{ event: "return.updated", data: pick(rma, UPDATED_FIELDS) }], now)
          return rma
        })
      )
    }),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "returns" }, query, (page) =>
        repo.list(
          organisation.id,
          {
            ...(query.status !== undefined ? { status: query.status } : {}),
            ...(query.order_id !== undefined ? { orderId: query.order_id } : {}),
            ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {})
          },
          page
        )
      )
  })
})

export const layer = Layer.effect(Returns, make)
