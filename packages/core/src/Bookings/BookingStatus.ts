/**
 * The booking status machine as data. A request waits as pending until it is confirmed; a
 * confirmed booking ends as completed or no_show once its time has come, or is cancelled before.
 * cancelled, completed and no_show are final: a new time is a new booking, so history never changes.
 */
import { isFinalIn, type Transitions, transitionIn } from "../internal/StateMachine.js"
import type { BookingStatus } from "./BookingSchemas.js"

export const TRANSITIONS: Transitions<BookingStatus> = {
  pending: ["confirmed", "cancelled"],
  confirmed: ["cancelled", "completed", "no_show"],
  cancelled: [],
  completed: [],
  no_show: []
}

export const transition = transitionIn(TRANSITIONS)
export const isFinal = isFinalIn(TRANSITIONS)
