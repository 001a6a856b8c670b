/**
 * The named shapes of the OpenAPI document (its `components.schemas`), which client generators turn
 * into named types. A core shape is named as the core exports it, so the name is written once, where
 * the shape is defined; this table only chooses which of them the document names.
 *
 * The names live here rather than in a `.meta({ id })` on each core schema: an id in zod's global
 * registry would reach every JSON Schema made from those schemas, so the MCP tool listings would
 * turn into `$defs` and `$ref`s, and an embedder's own schema named `Contact` would collide with ours.
 */
import {
  Access,
  Companies,
  Contacts,
  Deals,
  Events,
  Forms,
  Health,
  Import,
  Inventory,
  Invoicing,
  Mail,
  Orders,
  Pricing,
  PurchaseOrders,
  Quotes,
  Records,
  Returns,
  Settings,
  Tasks,
  Tickets,
  Validation,
  Visits,
  Webhooks
} from "@crm/core"
import { z } from "zod"

/** The body of every error answer (`Edge.errorBody` writes it). */
export const ErrorBody = z.object({
  error: z.string().describe("the error code"),
  detail: z
    .union([z.array(Validation.ValidationIssue), z.unknown()])
    .describe(
      "what went wrong: for validation_failed a list of issues, else a message or an object the error code's description names"
    ),
  request_id: z.string().describe("the X-Request-Id of the response, to quote when reporting it")
})

/** A shape's name in requests (`input`) and in responses (`output`). */
export interface Name {
  readonly input: string
  readonly output: string
}

type SchemaKeys<M> = { [K in keyof M]: M[K] extends z.ZodType ? K : never }[keyof M] & string

const named = <M>(module: M, ...keys: ReadonlyArray<SchemaKeys<M>>): ReadonlyArray<readonly [z.ZodType, Name]> =>
  keys.map((key) => [module[key] as z.ZodType, { input: key, output: key }])

/** Each named shape and its names. */
export const schemaNames: ReadonlyMap<z.ZodType, Name> = new Map([
  [ErrorBody, { input: "Error", output: "Error" }],
  ...named(Validation, "ValidationIssue"),
  ...named(
    Access,
    "Scope",
    "KeyCreate",
    "CreatedKey",
    "KeySummary",
    "KeyPage",
    "Me",
    "OrganisationSummary",
    "OrganisationPage"
  ),
  ...named(Contacts, "Contact", "ContactCreate", "ContactPatch", "ContactPage", "ContactStatus"),
  ...named(Companies, "Company", "CompanyCreate", "CompanyPatch", "CompanyPage"),
  ...named(
    Deals,
    "Deal",
    "DealCreate",
    "DealPatch",
    "DealPage",
    "DealStatus",
    "StageHistory",
    "StageVisit",
    "PipelinePage",
    "Pipeline",
    "PipelineInput",
    "Stage",
    "StageInput",
    "StageKind",
    "PlaybookTask"
  ),
  ...named(Tasks, "Task", "TaskCreate", "TaskPatch", "TaskPage", "EntityType", "TaskPriority"),
  ...named(
    Records,
    "CustomRecord",
    "WrittenRecord",
    "RecordCreate",
    "RecordPatch",
    "RecordPage",
    "RecordType",
    "RecordTypeInput",
    "Aggregate"
  ),
  ...named(Forms, "Form", "FormInput", "FormFieldType", "Submission", "SubmissionCreate", "FormCounts"),
  // The settings answer these as they were stored, defaults filled in: in a response no field of
  // theirs is missing, so the response shape has a name of its own.
  [Records.RecordFieldInput, { input: "RecordFieldInput", output: "RecordField" }],
  [Forms.FormFieldInput, { input: "FormFieldInput", output: "FormField" }],
  ...named(Visits, "Visit", "VisitCreate"),
  ...named(Pricing, "Line", "LineInput", "VatSummaryRow"),
  ...named(Quotes, "Quote", "QuoteCreate", "QuotePatch", "QuotePage", "QuoteRevision", "QuoteRevisions"),
  ...named(
    Invoicing,
    "Invoice",
    "InvoiceCreate",
    "InvoicePatch",
    "InvoicePage",
    "InvoiceIssue",
    "InvoiceKind",
    "Buyer",
    "Payment",
    "PaymentCreate",
    "PaymentList",
    "RatesImport"
  ),
  ...named(
    Inventory,
    "Product",
    "ProductCreate",
    "ProductPatch",
    "ProductPage",
    "ProductKind",
    "ProductOption",
    "Variant",
    "VariantInput",
    "StockBand",
    "StockMove",
    "StockMovement",
    "StockMovementPage",
    "MovementKind",
    "StockSettingsInput"
  ),
  ...named(
    Orders,
    "Order",
    "OrderCreate",
    "OrderPatch",
    "OrderPage",
    "OrderLine",
    "OrderLineInput",
    "OrderBuyer",
    "OrderFulfilment",
    "OrderPaymentMethod",
    "OrderPaymentStatus"
  ),
  ...named(Returns, "Return", "ReturnCreate", "ReturnUpdate", "ReturnPage", "ReturnItem", "ReturnLine"),
  ...named(
    PurchaseOrders,
    "PurchaseOrder",
    "PurchaseOrderCreate",
    "PurchaseOrderPage",
    "PurchaseOrderLine",
    "PurchaseOrderReceipt"
  ),
  // A ticket's priority is the tasks' (TicketPriority is TaskPriority): one shape, one name.
  ...named(Tickets, "Ticket", "TicketPage", "TicketReply", "TicketChannel"),
  ...named(
    Webhooks,
    "Hook",
    "HookCreate",
    "HookPatch",
    "HookPage",
    "HookWithSecret",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryPage",
    "DeliveryStatus"
  ),
  ...named(Events, "EventEnvelope", "EventPage"),
  ...named(Mail, "MailMessage", "MailPage", "MailStatus"),
  ...named(Import, "ImportReport", "ImportedItem"),
  ...named(Health, "HealthStatus"),
  ...named(
    Settings,
    "Organisation",
    "OrganisationCreate",
    "Settings",
    "SettingsInput",
    "PlanInput",
    "NumberingInput",
    "SeriesInput",
    "User",
    "UserInput"
  )
])
