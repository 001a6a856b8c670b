/**
 * The catalogue tools: record types and custom records, quotes, invoices, products, orders,
 * tickets and purchase orders. Each list tool's input is its REST list query with the paging
 * replaced by the tool's `limit` (and `offset`) and the query-string booleans (`"true"`) turned
 * into JSON booleans; each calls the same kernel `list` as REST.
 */
import { Inventory, Invoicing, Orders, PurchaseOrders, Quotes, Records, Tickets } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { PDF_NOTE, withPdf, withPdfs } from "../PdfLinks.js"
import { CREATES, listOf, listResult, paging, READ_ONLY, type Tool, tool } from "../Tool.js"

const flag = (description: string) => z.boolean().optional().describe(description)

/** What an assistant can set on a record: formula and rollup fields are computed, never written. */
const settable = (type: Records.RecordField["type"]) => type !== "formula" && type !== "rollup"

const Settable = { settable: z.boolean().describe("false for formula and rollup fields, which are computed") }
// Each kind of field is extended, not intersected with the flag: a field's schema admits no key it does
// not name, so no field could match both. A kind the core adds fails to compile here (the handler's
// result is checked against this union), so the list cannot fall behind.
const [plain, choice, formula, rollup, relation] = Records.RecordFieldInput.options

/** A record type as list_record_types shows it: each field of the settings with whether it can be set. */
const ListedRecordType = Records.RecordType.extend({
  fields: z.array(
    z.discriminatedUnion("type", [
      plain.extend(Settable),
      choice.extend(Settable),
      formula.extend(Settable),
      rollup.extend(Settable),
      relation.extend(Settable)
    ])
  )
})

export const catalogueTools: ReadonlyArray<Tool> = [
  tool({
    name: "list_record_types",
    title: "List record types",
    description:
      "The custom record types this organisation defines, each with its key (used as `type` by list_records and create_record) and its fields: key, field type, options of select and multiselect fields, and whether the field can be set (formula and rollup fields are computed). Call it before create_record.",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object({ limit: paging.limit }),
    output: listResult(ListedRecordType),
    run: (input, { principal }) =>
      Effect.sync(() => {
        const types = principal.organisation.settings.record_types
        return {
          items: types.slice(0, input.limit).map((type) => ({
            id: type.id,
            key: type.key,
            name: type.name,
            fields: type.fields.map((field) => ({ ...field, settable: settable(field.type) }))
          })),
          has_more: types.length > input.limit
        }
      })
  }),
  tool({
    name: "list_records",
    title: "List custom records",
    description:
      "Custom records, newest first, with their field values (formula and rollup fields computed). Filter by record type key (`type`, see list_record_types), a case-insensitive fragment of the title (`q`), or the contact, company or deal a record links to.",
    scope: "read",
    annotations: READ_ONLY,
    input: Records.RecordListQuery.pick({
      type: true,
      q: true,
      contact_id: true,
      company_id: true,
      deal_id: true
    }).extend(paging),
    output: listResult(Records.CustomRecord),
    run: (input, { principal }) =>
      Effect.flatMap(Records.Records, (records) => records.list(principal.organisation, input)).pipe(Effect.map(listOf))
  }),
  tool({
    name: "create_record",
    title: "Create a custom record",
    description:
      "Creates a record of a custom record type (`type` is the type's key from list_record_types) with values in `custom` by field key. Keys the type does not define are not stored and are listed in `ignored_fields`; select and multiselect values must be among the field's options; formula and rollup fields cannot be set. Returns the record as stored.",
    scope: "write",
    annotations: CREATES,
    input: Records.RecordCreate,
    output: Records.WrittenRecord,
    run: (input, { principal, actor }) =>
      Effect.flatMap(Records.Records, (records) => records.create(principal.organisation, input, actor))
  }),
  tool({
    name: "list_quotes",
    title: "List quotes",
    description:
      "Quotes (offers sent to customers), newest first, with number, status, lines and gross total in the quote's currency. Filter by status (draft, sent, accepted, rejected, expired, cancelled), contact or company." +
      PDF_NOTE,
    scope: "read",
    annotations: READ_ONLY,
    input: Quotes.QuoteListQuery.pick({ status: true, contact_id: true, company_id: true }).extend(paging),
    output: listResult(withPdf(Quotes.Quote)),
    run: (input, { principal }) =>
      Effect.flatMap(Quotes.Quotes, (quotes) => quotes.list(principal.organisation, input)).pipe(
        Effect.map((page) => withPdfs("quotes")(listOf(page)))
      )
  }),
  tool({
    name: "list_invoices",
    title: "List invoices",
    description:
      "Invoices of every status, newest first, with number, kind, dates, gross total and the amount paid. Filter by status (draft, issued, partial, paid, overdue, cancelled), kind (normal, storno, corrective, proforma, advance), contact or company. For what is still owed, with days past due, use list_unpaid_invoices." +
      PDF_NOTE,
    scope: "read",
    annotations: READ_ONLY,
    input: Invoicing.InvoiceListQuery.pick({ status: true, kind: true, contact_id: true, company_id: true }).extend(
      paging
    ),
    output: listResult(withPdf(Invoicing.Invoice)),
    run: (input, { principal }) =>
      Effect.flatMap(Invoicing.Invoicing, (invoicing) => invoicing.list(principal.organisation, input)).pipe(
        Effect.map((page) => withPdfs("invoices")(listOf(page)))
      )
  }),
  tool({
    name: "list_products",
    title: "List products",
    description:
      "Products of the catalogue, newest first, with SKU, net price, VAT rate, kind, category, stock level (null when not tracked) and variants. Filter by stock band (`stock`: untracked, out = none left, low = at or below the low-stock threshold, ok = above it), `active`, category or kind.",
    scope: "read",
    annotations: READ_ONLY,
    input: Inventory.ProductListQuery.pick({ category: true, kind: true, stock: true }).extend({
      active: flag("true: only products on sale; false: only withdrawn ones"),
      ...paging
    }),
    output: listResult(Inventory.Product),
    run: (input, { principal }) =>
      Effect.flatMap(Inventory.Inventory, (inventory) => inventory.list(principal.organisation, input)).pipe(
        Effect.map(listOf)
      )
  }),
  tool({
    name: "list_orders",
    title: "List orders",
    description:
      "Orders from the organisation's shop and connected webshops, newest first, with order number, fulfilment, payment status, gross total and lines. Filter by fulfilment (new, confirmed, shipped, delivered, cancelled), payment_status (none, pending, paid, failed) or the buyer contact.",
    scope: "read",
    annotations: READ_ONLY,
    input: Orders.OrderListQuery.pick({ fulfilment: true, payment_status: true, contact_id: true }).extend(paging),
    output: listResult(Orders.Order),
    run: (input, { principal }) =>
      Effect.flatMap(Orders.Orders, (orders) => orders.list(principal.organisation, input)).pipe(Effect.map(listOf))
  }),
  tool({
    name: "list_tickets",
    title: "List support tickets",
    description:
      "Customer support tickets, newest first, with number, subject, status, priority, channel, requester and SLA due time. Filter by status (open, pending, solved, closed), channel (email, portal, manual, chat), contact, or `breached` (true: past its SLA due time and not yet solved or closed). Read-only: tickets are answered in the application.",
    scope: "read",
    annotations: READ_ONLY,
    input: Tickets.TicketListQuery.pick({ status: true, channel: true, contact_id: true }).extend({
      breached: flag("true: only tickets past their SLA due time while still unsolved; false: only the others"),
      ...paging
    }),
    output: listResult(Tickets.Ticket),
    run: (input, { principal }) =>
      Effect.flatMap(Tickets.Tickets, (tickets) => tickets.list(principal.organisation, input)).pipe(Effect.map(listOf))
  }),
  tool({
    name: "list_purchase_orders",
    title: "List purchase orders",
    description:
      "Purchase orders sent to suppliers, newest first, with number, supplier, status and lines with ordered and received quantities. Filter by status (draft, ordered, partial = some goods received, received, cancelled).",
    scope: "read",
    annotations: READ_ONLY,
    input: PurchaseOrders.PurchaseOrderListQuery.pick({ status: true }).extend(paging),
    output: listResult(PurchaseOrders.PurchaseOrder),
    run: (input, { principal }) =>
      Effect.flatMap(PurchaseOrders.PurchaseOrders, (orders) => orders.list(principal.organisation, input)).pipe(
        Effect.map(listOf)
      )
  })
]
