import { Orders } from "@crm/core"
import { type Area, named } from "../Area.js"
import { createRoute, getRoute, listRoute, patchRoute } from "./resource.js"

const spec = {
  service: Orders.Orders,
  plural: "orders",
  singular: "order",
  pascal: "Order",
  schemas: {
    id: Orders.OrderId,
    create: Orders.OrderCreate,
    patch: Orders.OrderPatch,
    record: Orders.Order,
    page: Orders.OrderPage,
    query: Orders.OrderListQuery
  },
  createErrors: [
    "validation_failed",
    "order_already_exists",
    "email_already_exists",
    "insufficient_stock",
    "stock_not_tracked",
    "variant_required",
    // Creating the buyer counts against the plan's contact limit.
    "plan_refused"
  ],
  updateErrors: ["transition_not_allowed", "insufficient_stock", "stock_not_tracked", "variant_required"],
  notes: {
    create:
      "Record an order from a connected webshop: the buyer is contact_id or buyer (the live contact with that email, else a new one, emitting contact.created); lines are priced per line; tracked stock is taken through the ledger (409 insufficient_stock: nothing is written); numbered from the order series; emits webshop.order (and order.paid when it arrives paid); a repeated external_id is 409 order_already_exists with the existing id",
    update:
      "Move an order: payment_status first (none → pending | paid; pending → paid | failed; failed → pending | paid; paid is final; into paid emits order.paid), then fulfilment (new → confirmed | cancelled; confirmed → shipped | cancelled; shipped → delivered). Any other move, the same state again, or confirming or shipping while payment is pending is 409 transition_not_allowed with {from, to}. Shipping needs tracking_url (422) and mails the buyer; cancelling returns the stock the sale took"
  }
} as const

export const orderRoutes = [listRoute(spec), createRoute(spec), getRoute(spec), patchRoute(spec)]

export const ordersArea: Area = {
  api: orderRoutes,
  schemaNames: named(
    Orders,
    "Order",
    "OrderCreate",
    "OrderPatch",
    "OrderPage",
    "OrderLine",
    "OrderLineInput",
    "OrderBuyer",
    "OrderFulfilment",
    "OrderPaymentMethod",
    "OrderPaymentStatus"
  )
}
