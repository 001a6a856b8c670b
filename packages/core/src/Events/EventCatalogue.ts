import type { z } from "zod"
import { encoder } from "../Wire.js"

/** Every event name of the contract's catalogue: the `event` filter and hook subscriptions accept only these. */
export const EVENT_NAMES = [
  "contact.created",
  "contact.updated",
  // An extension to the contract's catalogue: payload `{id}` only, since the person is gone.
  "contact.erased",
  "company.created",
  "company.updated",
  "deal.created",
  "deal.updated",
  "deal.status_changed",
  "deal.won",
  "deal.lost",
  "task.created",
  "task.completed",
  "quote.created",
  "quote.accepted",
  "quote.rejected",
  "invoice.issued",
  "invoice.paid",
  "product.created",
  "product.updated",
  "record.created",
  "record.updated",
  "form.submitted",
  "webshop.order",
  "order.paid",
  "lead.received",
  "call.ended",
  "call.missed",
  "call.transcribed",
  "survey.answered",
  "ticket.created",
  "ticket.updated",
  "return.created",
  "return.updated",
  "purchase_order.received"
] as const

export type EventName = (typeof EVENT_NAMES)[number]

const names: ReadonlySet<string> = new Set(EVENT_NAMES)
export const isEventName = (name: string): name is EventName => names.has(name)

/** Builds a payload holding exactly the catalogue's keys, in the catalogue's order, and nothing else. */
export const pick = <T extends object, K extends keyof T>(record: T, keys: ReadonlyArray<K>): { [P in K]: T[P] } => {
  const out = {} as { [P in K]: T[P] }
  for (const key of keys) out[key] = record[key]
  return out
}

/**
 * `pick` for a record whose schema has fields held otherwise than written (money, held as an
 * `Amount`): the payload is in its wire form, as webhooks deliver it and `GET /events` returns it.
 * Made once per payload, from the record's schema.
 */
export const payloadOf = <S extends z.ZodObject, K extends keyof z.output<S>>(schema: S, keys: ReadonlyArray<K>) => {
  const encode = encoder(schema)
  return (record: z.output<S>): Record<string, unknown> => {
    const data = pick(record, keys)
    return encode === undefined ? data : (encode(data) as Record<string, unknown>)
  }
}
