/**
 * The return (RMA) status machine as data: a request is approved or rejected; approved goods are
 * received and then refunded. The customer may withdraw until the goods arrive. Rejected,
 * refunded and cancelled are final.
 */
import { type Transitions, transitionIn } from "../internal/StateMachine.js"
import type { ReturnStatus } from "./ReturnSchemas.js"

export const TRANSITIONS: Transitions<ReturnStatus> = {
  requested: ["approved", "rejected", "cancelled"],
  approved: ["received", "cancelled"],
  received: ["refunded"],
  rejected: [],
  refunded: [],
  cancelled: []
}

export const transition = transitionIn(TRANSITIONS)
