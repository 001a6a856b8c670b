/**
 * Purchase orders over REST: goods ordered from a supplier, moved through their actions; a
 * receipt brings the units of lines with a product into tracked stock through the ledger.
 */
import { PurchaseOrders } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { route, write } from "../Route.js"
import { actorOf } from "./principal.js"
import { createRoute, getRoute, listRoute } from "./resource.js"

const tag = "purchase-orders"

const spec = {
  service: PurchaseOrders.PurchaseOrders,
  plural: tag,
  singular: "purchase order",
  pascal: "PurchaseOrder",
  schemas: {
    id: PurchaseOrders.PurchaseOrderId,
    create: PurchaseOrders.PurchaseOrderCreate,
    // No PATCH: a purchase order changes only through its actions below.
    patch: z.never(),
    record: PurchaseOrders.PurchaseOrder,
    page: PurchaseOrders.PurchaseOrderPage,
    query: PurchaseOrders.PurchaseOrderListQuery
  },
  createErrors: ["validation_failed", "variant_required"],
  updateErrors: [],
  notes: {
    create:
      "Create a draft purchase order, numbered from the purchase_order series (PO2026-0001); each line gets an id. A line's product_id must be a product of the organisation (else 422 naming items.<n>.product_id), with variant_id for a product sold in variants (422 variant_required) and only then"
  }
} as const

const ACTIONS = {
  order: "Send a draft to the supplier: draft → ordered, stamps ordered_at",
  cancel:
    "Cancel a purchase order not yet received (a partly received one keeps what arrived, and the stock it brought)"
} as const

export const purchaseOrderRoutes = [
  listRoute(spec),
  createRoute(spec),
  getRoute(spec),
  ...(["order", "cancel"] as const).map((action) =>
    route({
      method: "POST",
      path: `/${tag}/{id}/${action}`,
      params: { id: PurchaseOrders.PurchaseOrderId },
      operationId: `${action}PurchaseOrder`,
      tag,
      guard: write,
      summary: `${ACTIONS[action]}. A move the status machine does not allow is 409 transition_not_allowed with {from, to}`,
      success: { status: 200, schema: PurchaseOrders.PurchaseOrder, description: "the purchase order" },
      errors: ["not_found", "transition_not_allowed"],
      handle: ({ principal, params }) =>
        Effect.flatMap(PurchaseOrders.PurchaseOrders, (orders) =>
          orders[action](principal.organisation, params.id)
        ).pipe(Effect.map(ok))
    })
  ),
  route({
    method: "POST",
    path: `/${tag}/{id}/receive`,
    params: { id: PurchaseOrders.PurchaseOrderId },
    operationId: "receivePurchaseOrder",
    tag,
    guard: write,
    summary:
      "Record goods that arrived: per line of the order (line_id), how many units, added to what earlier receipts recorded; more than is still missing is 422 naming items.<n>.quantity. The order becomes partial, then received with the last missing unit (emits purchase_order.received). In the same transaction each line with a product adds its units to the product's (or variant's) tracked stock as a receipt movement naming the purchase order; untracked stock is left alone. Receiving a draft, cancelled or received order is 409 transition_not_allowed",
    body: PurchaseOrders.PurchaseOrderReceipt,
    success: { status: 200, schema: PurchaseOrders.PurchaseOrder, description: "the purchase order" },
    errors: ["not_found", "validation_failed", "variant_required", "transition_not_allowed"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(PurchaseOrders.PurchaseOrders, (orders) =>
        orders.receive(principal.organisation, params.id, body, actorOf(principal))
      ).pipe(Effect.map(ok))
  })
]

export const purchaseOrdersArea: Area = {
  api: purchaseOrderRoutes,
  schemaNames: named(
    PurchaseOrders,
    "PurchaseOrder",
    "PurchaseOrderCreate",
    "PurchaseOrderPage",
    "PurchaseOrderLine",
    "PurchaseOrderReceipt"
  )
}
