/**
 * Which event a logged call emits, by its status, as data: a conversation that took place ended;
 * one that never connected because nobody took it was missed. A failed call (the line or the
 * provider broke) is neither, and emits nothing.
 */
import type { CallStatus } from "./CallSchemas.js"

export const EVENT_OF: { readonly [S in CallStatus]: "call.ended" | "call.missed" | null } = {
  completed: "call.ended",
  missed: "call.missed",
  no_answer: "call.missed",
  busy: "call.missed",
  failed: null
}
