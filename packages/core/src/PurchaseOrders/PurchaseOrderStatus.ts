/**
 * The purchase order status machine as data, and what a receipt of goods does to the lines. A
 * draft is ordered from the supplier; receipts make it partial until every unit has arrived, then
 * received. Anything not yet received may be cancelled (a partial order keeps what arrived).
 * Received and cancelled are final.
 */
import * as Either from "effect/Either"
import { TransitionNotAllowed, ValidationFailed, type ValidationIssue } from "../Errors.js"
import { type Transitions, transitionIn } from "../internal/StateMachine.js"
import type { PurchaseOrderLine, PurchaseOrderReceipt, PurchaseOrderStatus } from "./PurchaseOrderSchemas.js"

export const TRANSITIONS: Transitions<PurchaseOrderStatus> = {
  draft: ["ordered", "cancelled"],
  ordered: ["partial", "received", "cancelled"],
  // Another partial delivery leaves it partial.
  partial: ["partial", "received", "cancelled"],
  received: [],
  cancelled: []
}

export const transition = transitionIn(TRANSITIONS)

export interface Received {
  readonly items: ReadonlyArray<PurchaseOrderLine>
  readonly status: "partial" | "received"
}

export const isComplete = (lines: ReadonlyArray<PurchaseOrderLine>): boolean =>
  lines.every((line) => line.received_quantity === line.quantity)

/**
 * Adds a receipt to the lines. Every entry must name a line of the order and no line may receive
 * more than was ordered (each refusal names its entry); the status follows from what is then
 * still missing and must be a move the machine allows from `from`.
 */
export const receive = (
  from: PurchaseOrderStatus,
  lines: ReadonlyArray<PurchaseOrderLine>,
  receipt: PurchaseOrderReceipt
): Either.Either<Received, TransitionNotAllowed | ValidationFailed> => {
  if (!TRANSITIONS[from].includes("received")) {
    return Either.left(new TransitionNotAllowed({ detail: { from, to: "received" } }))
  }
  const received = new Map(lines.map((line) => [line.id, line.received_quantity]))
  const issues: Array<ValidationIssue> = []
  receipt.items.forEach((entry, index) => {
    const line = lines.find((candidate) => candidate.id === entry.line_id)
    if (line === undefined) {
      issues.push({ path: `items.${index}.line_id`, message: "no such line on this order", code: "unknown_reference" })
      return
    }
    const total = (received.get(line.id) ?? 0) + entry.quantity
    if (total > line.quantity) {
      issues.push({
        path: `items.${index}.quantity`,
        message: `line '${line.name}' ordered ${line.quantity}, ${line.quantity - (received.get(line.id) ?? 0)} still missing`,
        code: "too_big"
      })
      return
    }
    received.set(line.id, total)
  })
  if (issues.length > 0) return Either.left(new ValidationFailed({ detail: issues }))
  const items = lines.map((line) => ({ ...line, received_quantity: received.get(line.id) ?? line.received_quantity }))
  const status = isComplete(items) ? "received" : "partial"
  return Either.map(transition(from, status), () => ({ items, status }))
}
