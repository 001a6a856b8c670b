/**
 * What a return may take back from its order, as a pure rule. Each item names a line of the
 * order; per line, the units coming back never exceed what the line delivered less what the
 * order's other returns already claim. Only a delivered order has delivered anything. A return
 * claims its units until it is rejected or cancelled, so that two requests cannot both take back
 * the same unit.
 */
import * as Either from "effect/Either"
import { ValidationFailed, type ValidationIssue } from "../Errors.js"
import type { Order } from "../Orders/OrderSchemas.js"
import type { Return, ReturnItem, ReturnLine, ReturnStatus } from "./ReturnSchemas.js"

const RELEASED: ReadonlyArray<ReturnStatus> = ["rejected", "cancelled"]

/** Units of each order line that returns still standing claim. */
export const claimed = (returns: ReadonlyArray<Pick<Return, "status" | "items">>): ReadonlyMap<number, number> => {
  const units = new Map<number, number>()
  for (const rma of returns) {
    if (RELEASED.includes(rma.status)) continue
    for (const item of rma.items) {
      if (item.line !== null) units.set(item.line, (units.get(item.line) ?? 0) + item.quantity)
    }
  }
  return units
}

const delivered = (order: Order, quantity: number): number => (order.fulfilment === "delivered" ? quantity : 0)

/**
 * The return's lines (each copying its order line's product, variant and name), or every item
 * the order cannot take back, each refusal naming its item.
 */
export const linesOf = (
  order: Order,
  earlier: ReadonlyArray<Pick<Return, "status" | "items">>,
  items: ReadonlyArray<ReturnItem>
): Either.Either<ReadonlyArray<ReturnLine>, ValidationFailed> => {
  const taken = new Map(claimed(earlier))
  const issues: Array<ValidationIssue> = []
  const lines: Array<ReturnLine> = []
  items.forEach((item, index) => {
    const line = order.items[item.line]
    if (line === undefined) {
      issues.push({
        path: `items.${index}.line`,
        message: `order ${order.order_number} has ${order.items.length} lines, numbered from 0`,
        code: "unknown_reference"
      })
      return
    }
    const before = taken.get(item.line) ?? 0
    const left = delivered(order, line.quantity) - before
    if (item.quantity > left) {
      issues.push({
        path: `items.${index}.quantity`,
        message:
          order.fulfilment === "delivered"
            ? `line '${line.name}' delivered ${line.quantity}, ${before} of them already claimed by returns: at most ${Math.max(left, 0)} more can come back`
            : `order ${order.order_number} is ${order.fulfilment}, not delivered: nothing can come back yet`,
        code: "too_big"
      })
      return
    }
    taken.set(item.line, before + item.quantity)
    lines.push({
      line: item.line,
      product_id: line.product_id,
      variant_id: line.variant_id,
      name: line.name,
      quantity: item.quantity
    })
  })
  return issues.length > 0 ? Either.left(new ValidationFailed({ detail: issues })) : Either.right(lines)
}
