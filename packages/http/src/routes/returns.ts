/** Returns (RMAs) over REST: goods of a delivered order coming back, through their status machine. */
import { Returns } from "@crm/core"
import { type Area, named } from "../Area.js"
import { createRoute, getRoute, listRoute, patchRoute } from "./resource.js"

const spec = {
  service: Returns.Returns,
  plural: "returns",
  singular: "return",
  pascal: "Return",
  schemas: {
    id: Returns.ReturnId,
    create: Returns.ReturnCreate,
    patch: Returns.ReturnUpdate,
    record: Returns.Return,
    page: Returns.ReturnPage,
    query: Returns.ReturnListQuery
  },
  createErrors: ["validation_failed"],
  updateErrors: ["transition_not_allowed"],
  notes: {
    create:
      "Request a return of a live order's goods: each item names a line of the order (line, its position in the order's items from 0) and a quantity, at most what the line delivered (nothing before the order is delivered) less what the order's other returns claim (all but rejected and cancelled ones); else 422 naming items.<n>.line or items.<n>.quantity. The return copies each line's product, variant and name, takes the order's buyer as contact_id, is numbered from the return series (RMA2026-0001) and emits return.created",
    update:
      "Move a return: requested → approved | rejected | cancelled; approved → received | cancelled; received → refunded (emits return.updated; the same status again changes nothing and emits nothing). Any other move is 409 transition_not_allowed with {from, to}. Receiving puts each line's units back into its product's (or variant's) tracked stock, in the same transaction, as return movements naming the return and its order; untracked stock and variants removed since are left alone"
  }
} as const

export const returnRoutes = [listRoute(spec), createRoute(spec), getRoute(spec), patchRoute(spec)]

export const returnsArea: Area = {
  api: returnRoutes,
  schemaNames: named(Returns, "Return", "ReturnCreate", "ReturnUpdate", "ReturnPage", "ReturnItem", "ReturnLine")
}
