/** The service tables (tickets, returns, purchase orders, survey answers, calls), each declared once, and their records. */
import {
  Calls,
  type Contacts,
  type Deals,
  type Orders,
  PurchaseOrders,
  Returns,
  Surveys,
  Tickets,
  Wire
} from "@crm/core"
import { integer, json, literal, nullable, type RowOfTable, table, text, timestamp, uuid } from "./columns.js"

export const ticketTable = table("tickets", {
  id: uuid<Tickets.TicketId>(),
  number: text(),
  subject: text(),
  description: nullable(text()),
  status: literal(Tickets.TicketRecord.shape.status),
  priority: literal(Tickets.TicketRecord.shape.priority),
  channel: literal(Tickets.TicketRecord.shape.channel),
  contact_id: nullable(uuid<Contacts.ContactId>()),
  requester_email: text(),
  assigned_to: nullable(uuid()),
  sla_due_at: nullable(timestamp()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type TicketRow = RowOfTable<typeof ticketTable>
export const toTicket = (row: TicketRow): Tickets.TicketRecord => ticketTable.read(row)

/** Returns recorded before returns named their order's lines have no line: theirs reads as null. */
const itemsWithLine = (items: unknown): unknown =>
  Array.isArray(items)
    ? items.map((item) => (Wire.isPlainObject(item) && item.line === undefined ? { ...item, line: null } : item))
    : items

export const returnTable = table("returns", {
  id: uuid<Returns.ReturnId>(),
  number: text(),
  order_id: uuid<Orders.OrderId>(),
  contact_id: nullable(uuid<Contacts.ContactId>()),
  status: literal(Returns.Return.shape.status),
  reason: nullable(text()),
  items: json(Returns.Return.shape.items, { before: itemsWithLine }),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type ReturnRow = RowOfTable<typeof returnTable>
export const toReturn = (row: ReturnRow): Returns.Return => returnTable.read(row)

export const purchaseOrderTable = table("purchase_orders", {
  id: uuid<PurchaseOrders.PurchaseOrderId>(),
  number: text(),
  supplier: text(),
  status: literal(PurchaseOrders.PurchaseOrder.shape.status),
  items: json(PurchaseOrders.PurchaseOrder.shape.items),
  note: nullable(text()),
  ordered_at: nullable(timestamp()),
  received_at: nullable(timestamp()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type PurchaseOrderRow = RowOfTable<typeof purchaseOrderTable>
export const toPurchaseOrder = (row: PurchaseOrderRow): PurchaseOrders.PurchaseOrder => purchaseOrderTable.read(row)

export const surveyResponseTable = table("survey_responses", {
  id: uuid<Surveys.SurveyResponseId>(),
  survey_id: uuid<Surveys.SurveyId>(),
  kind: literal(Surveys.SurveyResponse.shape.kind),
  score: integer(),
  comment: nullable(text()),
  contact_id: uuid<Contacts.ContactId>(),
  deal_id: nullable(uuid<Deals.DealId>()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type SurveyResponseRow = RowOfTable<typeof surveyResponseTable>
export const toSurveyResponse = (row: SurveyResponseRow): Surveys.SurveyResponse => surveyResponseTable.read(row)

export const callTable = table("calls", {
  id: uuid<Calls.CallId>(),
  provider: text(),
  external_id: nullable(text()),
  direction: literal(Calls.Call.shape.direction),
  status: literal(Calls.Call.shape.status),
  duration_seconds: integer(),
  from_number: text(),
  to_number: text(),
  contact_id: nullable(uuid<Contacts.ContactId>()),
  recording_url: nullable(text()),
  started_at: timestamp(),
  transcript: nullable(text()),
  summary: nullable(text()),
  created_at: timestamp(),
  updated_at: timestamp()
})
export type CallRow = RowOfTable<typeof callTable>
export const toCall = (row: CallRow): Calls.Call => callTable.read(row)
