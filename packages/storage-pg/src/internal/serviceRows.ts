/** Rows of the service tables (tickets, returns, purchase orders, survey answers, calls) and their records. */
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
import { iso, isoOrNull, jsonValue } from "./rows.js"
import { jsonOf, literalOf } from "./storedValues.js"

type Timestamp = Date | string

export interface TicketRow {
  readonly id: Tickets.TicketId
  readonly number: string
  readonly subject: string
  readonly description: string | null
  readonly status: string
  readonly priority: string
  readonly channel: string
  readonly contact_id: Contacts.ContactId | null
  readonly requester_email: string
  readonly assigned_to: string | null
  readonly sla_due_at: Timestamp | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const ticketStatus = literalOf("status", Tickets.TicketRecord.shape.status)
const ticketPriority = literalOf("priority", Tickets.TicketRecord.shape.priority)
const ticketChannel = literalOf("channel", Tickets.TicketRecord.shape.channel)

export const toTicket = (row: TicketRow): Tickets.TicketRecord => ({
  id: row.id,
  number: row.number,
  subject: row.subject,
  description: row.description,
  status: ticketStatus(row.status),
  priority: ticketPriority(row.priority),
  channel: ticketChannel(row.channel),
  contact_id: row.contact_id,
  requester_email: row.requester_email,
  assigned_to: row.assigned_to,
  sla_due_at: isoOrNull(row.sla_due_at),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface ReturnRow {
  readonly id: Returns.ReturnId
  readonly number: string
  readonly order_id: Orders.OrderId
  readonly contact_id: Contacts.ContactId | null
  readonly status: string
  readonly reason: string | null
  readonly items: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const returnStatus = literalOf("status", Returns.Return.shape.status)
const returnLines = jsonOf("items", Returns.Return.shape.items)

/** Returns recorded before returns named their order's lines have no line: theirs reads as null. */
const itemsWithLine = (items: unknown): unknown =>
  Array.isArray(items)
    ? items.map((item) => (Wire.isPlainObject(item) && item.line === undefined ? { ...item, line: null } : item))
    : items

export const toReturn = (row: ReturnRow): Returns.Return => ({
  id: row.id,
  number: row.number,
  order_id: row.order_id,
  contact_id: row.contact_id,
  status: returnStatus(row.status),
  reason: row.reason,
  items: returnLines(itemsWithLine(jsonValue<unknown>(row.items))),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface PurchaseOrderRow {
  readonly id: PurchaseOrders.PurchaseOrderId
  readonly number: string
  readonly supplier: string
  readonly status: string
  readonly items: unknown
  readonly note: string | null
  readonly ordered_at: Timestamp | null
  readonly received_at: Timestamp | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const purchaseOrderStatus = literalOf("status", PurchaseOrders.PurchaseOrder.shape.status)
const purchaseOrderLines = jsonOf("items", PurchaseOrders.PurchaseOrder.shape.items)

export const toPurchaseOrder = (row: PurchaseOrderRow): PurchaseOrders.PurchaseOrder => ({
  id: row.id,
  number: row.number,
  supplier: row.supplier,
  status: purchaseOrderStatus(row.status),
  items: purchaseOrderLines(row.items),
  note: row.note,
  ordered_at: isoOrNull(row.ordered_at),
  received_at: isoOrNull(row.received_at),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface SurveyResponseRow {
  readonly id: Surveys.SurveyResponseId
  readonly survey_id: Surveys.SurveyId
  readonly kind: string
  readonly score: number
  readonly comment: string | null
  readonly contact_id: Contacts.ContactId
  readonly deal_id: Deals.DealId | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const surveyKind = literalOf("kind", Surveys.SurveyResponse.shape.kind)

export const toSurveyResponse = (row: SurveyResponseRow): Surveys.SurveyResponse => ({
  id: row.id,
  survey_id: row.survey_id,
  kind: surveyKind(row.kind),
  score: Number(row.score),
  comment: row.comment,
  contact_id: row.contact_id,
  deal_id: row.deal_id,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export interface CallRow {
  readonly id: Calls.CallId
  readonly provider: string
  readonly external_id: string | null
  readonly direction: string
  readonly status: string
  readonly duration_seconds: number
  readonly from_number: string
  readonly to_number: string
  readonly contact_id: Contacts.ContactId | null
  readonly recording_url: string | null
  readonly started_at: Timestamp
  readonly transcript: string | null
  readonly summary: string | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const callDirection = literalOf("direction", Calls.Call.shape.direction)
const callStatus = literalOf("status", Calls.Call.shape.status)

export const toCall = (row: CallRow): Calls.Call => ({
  id: row.id,
  provider: row.provider,
  external_id: row.external_id,
  direction: callDirection(row.direction),
  status: callStatus(row.status),
  duration_seconds: Number(row.duration_seconds),
  from_number: row.from_number,
  to_number: row.to_number,
  contact_id: row.contact_id,
  recording_url: row.recording_url,
  started_at: iso(row.started_at),
  transcript: row.transcript,
  summary: row.summary,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})
