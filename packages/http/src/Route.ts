/**
 * The route table entry. The router, the request validation and the OpenAPI document are all
 * read from these records, so they cannot drift apart.
 */
import { type Access, type Errors, type Kernel, type People, type SchemaWalk, type Webhooks, Wire } from "@crm/core"
import type * as Effect from "effect/Effect"
import type { z } from "zod"
import type { ErrorCode } from "./ErrorStatus.js"
import type { Reply } from "./Reply.js"

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/**
 * Every kernel service a handler may call: the kernel's own, read off its layer (a new context's
 * service joins by joining the kernel), webhooks, which the server composes with its sender, and
 * people, which the server composes with its password hasher.
 */
export type Services = Kernel.Services | Webhooks.Webhooks | People.People

/**
 * Who may call a route: an API key (with a scope), the operator's admin token, a signed-in person
 * (the session cookie), anyone from the site itself (signing in), or anyone.
 */
export interface KeyGuard<S extends Access.Scope = Access.Scope> {
  readonly kind: "key"
  readonly scope: S
  readonly spendsBudget: boolean
}
export interface AdminGuard {
  readonly kind: "admin"
}
export interface PublicGuard {
  readonly kind: "public"
}
/**
 * The session cookie: a write must also send the session's CSRF token and, if it sends an `Origin`,
 * the server's own. Under an organisation (`/organisations/{id}/...`), the person must belong to it:
 * anyone else is told it does not exist.
 */
export interface SessionGuard<O extends boolean = boolean> {
  readonly kind: "session"
  readonly organisation: O
}
/**
 * Anyone, from the site itself: a write that sends an `Origin` must send the server's own, so that
 * another site cannot sign its visitor in (or out, or into an invitation) behind their back.
 */
export interface VisitorGuard {
  readonly kind: "visitor"
}
export type Guard = KeyGuard | AdminGuard | PublicGuard | SessionGuard | VisitorGuard

/**
 * Who a handler is told is calling: the key's principal behind a key; the signed-in person (in the
 * path's organisation, with their role there, when the guard says so); the address and browser of
 * a visitor or of the operator (the audit trail records the operator's); none on a public route.
 */
export type PrincipalOf<G extends Guard> = G extends KeyGuard
  ? Access.Principal
  : G extends SessionGuard<true>
    ? People.MemberPrincipal
    : G extends SessionGuard<false>
      ? People.SessionPrincipal
      : G extends VisitorGuard | AdminGuard
        ? People.Client
        : undefined

/** Every principal a handler may be told of. */
export type Caller = Access.Principal | People.SessionPrincipal | People.Client | undefined

export interface Context<Q, B, P extends Caller = Caller, Params = Readonly<Record<string, string>>> {
  readonly principal: P
  readonly params: Params
  readonly query: Q
  readonly body: B
  readonly rateRemaining: number | undefined
}

/**
 * The codes the pipeline answers for a route by itself, whatever its handler does: the key or the
 * admin token refused, the session missing or a write from another site refused, the scope, the
 * budget and the plan, a path id naming nothing, the query or
 * body unreadable, the idempotency key, the request unreadable, the store unreachable. The OpenAPI
 * document lists them beside the route's own (`pipelineCodes`); `PipelineCode` is the same rule
 * read from a route's declaration by the compiler, so that a handler may fail with these too.
 */
export const pipelineCodes = (route: Route, hasPathParam: boolean): Array<ErrorCode> => {
  const codes: Array<ErrorCode> = []
  if (route.guard.kind === "key") {
    codes.push(
      "missing_bearer_token",
      "invalid_api_key",
      "expired_api_key",
      `missing_scope:${route.guard.scope}`,
      "rate_limited"
    )
    if (isWriting(route)) codes.push("plan_refused")
  }
  if (route.guard.kind === "admin") codes.push("missing_bearer_token", "invalid_api_key")
  if (route.guard.kind === "session") codes.push("session_required")
  if ((route.guard.kind === "session" || route.guard.kind === "visitor") && isWriting(route)) codes.push("csrf_refused")
  if (hasPathParam) codes.push("not_found")
  if (route.query !== undefined) codes.push("validation_failed")
  if (route.body !== undefined)
    codes.push("invalid_json", "unsupported_media_type", "payload_too_large", "validation_failed")
  if (route.body?.patch === true) codes.push("no_fields_to_update")
  // A malformed `Idempotency-Key` is `validation_failed` naming the header, on any write.
  if (isWriting(route) && route.guard.kind === "key") {
    codes.push("idempotency_in_progress", "idempotency_key_reused", "validation_failed")
  }
  // Any request may be too long before its route is even known; any that needs the store may
  // find it unreachable.
  codes.push("method_not_allowed", "uri_too_long", "headers_too_large", "internal_error")
  if (usesStore(route)) codes.push("service_unavailable")
  return codes
}

/** `pipelineCodes` for a declaration, as types (a path given as a plain `string` counts as having no parameter). */
export type PipelineCode<
  M extends Method,
  P extends string,
  G extends Guard,
  Q,
  B,
  Patch extends boolean,
  Codes extends ErrorCode
> =
  | (G extends KeyGuard<infer S>
      ?
          | "missing_bearer_token"
          | "invalid_api_key"
          | "expired_api_key"
          | `missing_scope:${S}`
          | "rate_limited"
          | (M extends "GET"
              ? never
              : "plan_refused" | "idempotency_in_progress" | "idempotency_key_reused" | "validation_failed")
      : G extends AdminGuard
        ? "missing_bearer_token" | "invalid_api_key"
        : G extends SessionGuard
          ? "session_required" | (M extends "GET" ? never : "csrf_refused")
          : G extends VisitorGuard
            ? M extends "GET"
              ? never
              : "csrf_refused"
            : never)
  | (P extends `${string}{${string}}${string}` ? "not_found" : never)
  | (Q extends z.ZodObject ? "validation_failed" : never)
  | (B extends z.ZodType
      ?
          | "invalid_json"
          | "unsupported_media_type"
          | "payload_too_large"
          | "validation_failed"
          | (Patch extends true ? "no_fields_to_update" : never)
      : never)
  | "method_not_allowed"
  | "uri_too_long"
  | "headers_too_large"
  | "internal_error"
  | (G extends PublicGuard
      ? "service_unavailable" extends Codes
        ? "service_unavailable"
        : never
      : "service_unavailable")

/**
 * What a handler may fail with: an error whose `code` is one the route answers, or the store
 * failing (a 500, or the 503 of an outage). Anything else a handler could fail with would be an
 * undocumented answer, so the compiler refuses it (`route`).
 */
export type Failure<Code extends string> = { readonly code: Code; readonly detail: unknown } | Errors.StorageError

/** The names of a path template's `{name}` segments (any name, for a template built at run time). */
export type PathParamName<P extends string> = string extends P
  ? string
  : P extends `${string}{${infer Name}}${infer Rest}`
    ? Name | PathParamName<Rest>
    : never

/** The kinds of id a route's path carries, by parameter name (`{ id: Organisation.OrganisationId }`). */
export type ParamKinds<P extends string> = Partial<Record<PathParamName<P>, z.ZodType<string>>>

/**
 * A handler's path parameters, named by its template: each a string, or the branded id its route
 * declares it to be. The pipeline has already checked an id's shape (not a uuid: `not_found`) and
 * lower-cased it; the declared kind is a type only, so the route says which id it is once.
 */
export type ParamsOf<P extends string, K> = {
  readonly [Name in PathParamName<P>]: Name extends keyof K ? IdOutput<K[Name]> : string
}

/**
 * The id a schema gives: `z.output` by an indexed access (`SchemaWalk.Output`), whose result
 * (unlike `z.output`'s conditional) code generic over the schema can still pass where the same id
 * is expected.
 */
export type IdOutput<S> = SchemaWalk.Output<S & z.ZodType<string>>

/** The body a success schema describes, as a handler gives it (the pipeline writes it as JSON). */
export type SuccessOf<S> = S extends z.ZodType ? Wire.Given<z.output<S>> : unknown

/** A route as the table holds it: every declaration's types erased to one shape (by `route`, only there). */
export interface Route {
  readonly method: Method
  /** OpenAPI-style template relative to the mount point, e.g. `/contacts/{id}`. */
  readonly path: string
  readonly operationId: string
  readonly summary: string
  readonly tag: string
  readonly guard: Guard
  readonly query: z.ZodObject | undefined
  /**
   * What a query the route cannot use is refused with, where it holds what no store could keep:
   * `validation_failed`, or the contract's 400 `invalid_parameter` for `GET /events`.
   */
  readonly queryRefusal: "validation_failed" | "invalid_parameter"
  readonly body:
    | {
        readonly schema: z.ZodType
        readonly patch: boolean
        readonly optional: boolean
        /**
         * `ndjson`: the body is JSON lines, handed to the handler as text (the schema describes that
         * text); `stream`: JSON lines handed over as their bytes arrive (`Stream<Uint8Array>`), up
         * to `MAX_STREAMED_BODY_BYTES` rather than the JSON limit.
         */
        readonly raw: "ndjson" | "stream" | undefined
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
    /** Turns the body's inside forms into its wire forms (an `Amount` into a number); none for most shapes. */
    readonly encode: Wire.Convert | undefined
  }
  readonly errors: ReadonlyArray<ErrorCode>
  readonly handle: (context: Context<unknown, unknown>) => Effect.Effect<Reply, Failure<ErrorCode>, Services>
}

export interface RouteSpec<
  M extends Method,
  P extends string,
  G extends Guard,
  Q extends z.ZodObject | undefined,
  B extends z.ZodType | undefined,
  Patch extends boolean,
  S extends z.ZodType | undefined,
  Codes extends ErrorCode,
  K extends ParamKinds<P> = {}
> {
  readonly method: M
  readonly path: P
  /** The branded id each path parameter is, where the handler passes it on as one. */
  readonly params?: K
  readonly operationId: string
  readonly summary: string
  readonly tag: string
  readonly guard: G
  readonly query?: Q
  /** `invalid_parameter` where the route answers an unusable parameter so (the default is `validation_failed`). */
  readonly queryRefusal?: "invalid_parameter"
  readonly body?: B
  /** A PATCH body: no known field is `no_fields_to_update` rather than `validation_failed`. */
  readonly patch?: Patch
  /** The body may be left out entirely, which reads as `{}`. */
  readonly optionalBody?: boolean
  /** The body is JSON lines (`application/x-ndjson` or `application/jsonl`), handed over as text. */
  readonly rawBody?: "ndjson" | "stream"
  /** The body is a batch (`{items: [...]}`): an item's validation issues are its `batch_failed`. */
  readonly batchBody?: boolean
  readonly success: {
    readonly status: number
    readonly schema?: S
    readonly description: string
    readonly file?: string
    /** An upsert answers 201 with the same body when it creates; this describes that answer. */
    readonly created?: string
  }
  /** The codes the handler may fail with, beyond those the pipeline answers for the route by itself. */
  readonly errors: ReadonlyArray<Codes>
  readonly handle: (
    context: Context<
      Q extends z.ZodObject ? z.output<Q> : undefined,
      B extends z.ZodType ? z.output<B> : undefined,
      PrincipalOf<G>,
      ParamsOf<P, K>
    >
  ) => Effect.Effect<
    Reply<SuccessOf<S>>,
    Failure<NoInfer<Codes> | PipelineCode<M, P, G, Q, B, Patch, NoInfer<Codes>>>,
    Services
  >
}

/**
 * Keeps each handler typed against its own declaration (schemas, guard, error codes) while the
 * table holds them uniformly: the one place where those types are erased.
 */
export const route = <
  M extends Method,
  P extends string,
  G extends Guard,
  Codes extends ErrorCode = never,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  S extends z.ZodType | undefined = undefined,
  Patch extends boolean = false,
  K extends ParamKinds<P> = {}
>(
  spec: RouteSpec<M, P, G, Q, B, Patch, S, Codes, K>
): Route => ({
  method: spec.method,
  path: spec.path,
  operationId: spec.operationId,
  summary: spec.summary,
  tag: spec.tag,
  guard: spec.guard,
  query: spec.query,
  queryRefusal: spec.queryRefusal ?? "validation_failed",
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
    created: spec.success.created,
    encode: spec.success.schema === undefined ? undefined : Wire.encoder(spec.success.schema)
  },
  errors: spec.errors,
  // The pipeline validates query and body with the same schemas, and admits a guarded route only
  // with the principal its guard names, before calling: the erasure is safe.
  handle: spec.handle as unknown as Route["handle"]
})

export const read = (spendsBudget = true): KeyGuard<"read"> => ({ kind: "key", scope: "read", spendsBudget })
export const write: KeyGuard<"write"> = { kind: "key", scope: "write", spendsBudget: true }
export const quotesWrite: KeyGuard<"quotes:write"> = { kind: "key", scope: "quotes:write", spendsBudget: true }
export const formsSubmit: KeyGuard<"forms:submit"> = { kind: "key", scope: "forms:submit", spendsBudget: true }
export const analyticsWrite: KeyGuard<"analytics:write"> = { kind: "key", scope: "analytics:write", spendsBudget: true }
export const invoicesWrite: KeyGuard<"invoices:write"> = { kind: "key", scope: "invoices:write", spendsBudget: true }
export const admin: AdminGuard = { kind: "admin" }
export const open: PublicGuard = { kind: "public" }
export const signedIn: SessionGuard<false> = { kind: "session", organisation: false }
export const member: SessionGuard<true> = { kind: "session", organisation: true }
export const visitor: VisitorGuard = { kind: "visitor" }

export const isWriting = (route: Route): boolean => route.method !== "GET"

/**
 * Whether answering needs the store, so that an outage of it is a 503: every route with a guard
 * (a key, the admin token, a session, a visitor signing in), and a public one only when it says
 * so among its errors (readiness does, the OpenAPI document does not).
 */
export const usesStore = (route: Route): boolean =>
  route.guard.kind !== "public" || route.errors.includes("service_unavailable")
