/**
 * The route table entry. The router, the request validation and the OpenAPI document are all
 * read from these records, so they cannot drift apart.
 */
import type {
  Access,
  Batch,
  BusinessClock,
  Companies,
  Contacts,
  Deals,
  Events,
  Forms,
  Health,
  Idempotency,
  Import,
  Inventory,
  Invoicing,
  Mail,
  Orders,
  PurchaseOrders,
  Quotes,
  Records,
  Returns,
  Tasks,
  Tickets,
  Visits,
  Webhooks
} from "@crm/core"
import type * as Effect from "effect/Effect"
import type { z } from "zod"
import type { ErrorCode } from "./ErrorStatus.js"
import type { Reply } from "./Reply.js"

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/** Every kernel service a handler may call. */
export type Services =
  | Access.Access
  | Batch.Batches
  | BusinessClock.BusinessClock
  | Contacts.Contacts
  | Companies.Companies
  | Deals.Deals
  | Tasks.Tasks
  | Webhooks.Webhooks
  | Inventory.Inventory
  | Orders.Orders
  | Returns.Returns
  | PurchaseOrders.PurchaseOrders
  | Mail.Mailer
  | Records.Records
  | Forms.Forms
  | Health.Health
  | Visits.Visits
  | Quotes.Quotes
  | Invoicing.Invoicing
  | Events.Events
  | Idempotency.Idempotency
  | Import.Import
  | Tickets.Tickets

/** Who may call a route: an API key (with a scope), the operator's admin token, or anyone. */
export type Guard =
  | { readonly kind: "key"; readonly scope: Access.Scope; readonly spendsBudget: boolean }
  | { readonly kind: "admin" }
  | { readonly kind: "public" }

export interface Context<Q, B> {
  readonly principal: Access.Principal | undefined
  readonly params: Readonly<Record<string, string>>
  readonly query: Q
  readonly body: B
  readonly rateRemaining: number | undefined
}

export interface Route {
  readonly method: Method
  /** OpenAPI-style template relative to the mount point, e.g. `/contacts/{id}`. */
  readonly path: string
  readonly operationId: string
  readonly summary: string
  readonly tag: string
  readonly guard: Guard
  readonly query: z.ZodObject | undefined
  readonly body:
    | {
        readonly schema: z.ZodType
        readonly patch: boolean
        readonly optional: boolean
        /** `ndjson`: the body is JSON lines, handed to the handler as text (the schema describes that text). */
        readonly raw: "ndjson" | undefined
        /** A batch (`{items: [...]}`): an item's validation issues are that item's `batch_failed`. */
        readonly batch: boolean
      }
    | undefined
  readonly success: {
    readonly status: number
    readonly schema: z.ZodType | undefined
    readonly description: string
    /** The media type of a success that is a file (`application/pdf`) rather than JSON. */
    readonly file: string | undefined
    /** An upsert: 201 with the same body when it creates, described so. */
    readonly created: string | undefined
  }
  readonly errors: ReadonlyArray<ErrorCode>
  readonly handle: (context: Context<unknown, unknown>) => Effect.Effect<Reply, unknown, Services>
}

export interface RouteSpec<Q extends z.ZodObject | undefined, B extends z.ZodType | undefined> {
  readonly method: Method
  readonly path: string
  readonly operationId: string
  readonly summary: string
  readonly tag: string
  readonly guard: Guard
  readonly query?: Q
  readonly body?: B
  /** A PATCH body: no known field is `no_fields_to_update` rather than `validation_failed`. */
  readonly patch?: boolean
  /** The body may be left out entirely, which reads as `{}`. */
  readonly optionalBody?: boolean
  /** The body is JSON lines (`application/x-ndjson` or `application/jsonl`), handed over as text. */
  readonly rawBody?: "ndjson"
  /** The body is a batch (`{items: [...]}`): an item's validation issues are its `batch_failed`. */
  readonly batchBody?: boolean
  readonly success: {
    readonly status: number
    readonly schema?: z.ZodType
    readonly description: string
    readonly file?: string
    /** An upsert answers 201 with the same body when it creates; this describes that answer. */
    readonly created?: string
  }
  readonly errors: ReadonlyArray<ErrorCode>
  readonly handle: (
    context: Context<Q extends z.ZodObject ? z.output<Q> : undefined, B extends z.ZodType ? z.output<B> : undefined>
  ) => Effect.Effect<Reply, unknown, Services>
}

/** Keeps each handler typed against its own schemas while the table holds them uniformly. */
export const route = <Q extends z.ZodObject | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  spec: RouteSpec<Q, B>
): Route => ({
  method: spec.method,
  path: spec.path,
  operationId: spec.operationId,
  summary: spec.summary,
  tag: spec.tag,
  guard: spec.guard,
  query: spec.query,
  body:
    spec.body === undefined
      ? undefined
      : {
          schema: spec.body,
          patch: spec.patch ?? false,
          optional: spec.optionalBody ?? false,
          raw: spec.rawBody,
          batch: spec.batchBody ?? false
        },
  success: {
    status: spec.success.status,
    schema: spec.success.schema,
    description: spec.success.description,
    file: spec.success.file,
    created: spec.success.created
  },
  errors: spec.errors,
  // The pipeline validates query and body with the same schemas before calling, so the erasure is safe.
  handle: spec.handle as unknown as Route["handle"]
})

export const read = (spendsBudget = true): Guard => ({ kind: "key", scope: "read", spendsBudget })
export const write: Guard = { kind: "key", scope: "write", spendsBudget: true }
export const quotesWrite: Guard = { kind: "key", scope: "quotes:write", spendsBudget: true }
export const formsSubmit: Guard = { kind: "key", scope: "forms:submit", spendsBudget: true }
export const analyticsWrite: Guard = { kind: "key", scope: "analytics:write", spendsBudget: true }
export const invoicesWrite: Guard = { kind: "key", scope: "invoices:write", spendsBudget: true }
export const admin: Guard = { kind: "admin" }
export const open: Guard = { kind: "public" }

export const isWriting = (route: Route): boolean => route.method !== "GET"

/**
 * Whether answering needs the store, so that an outage of it is a 503: every route behind a key or
 * the admin token, and a public one only when it says so among its errors (readiness does, the
 * OpenAPI document does not).
 */
export const usesStore = (route: Route): boolean =>
  route.guard.kind !== "public" || route.errors.includes("service_unavailable")
