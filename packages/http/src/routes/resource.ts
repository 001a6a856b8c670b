/**
 * The REST routes of a plain resource (list, create, get, patch, archive). Contexts whose service
 * has these operations get identical mechanics; anything special is a route of its own.
 */
import { Batch, Errors, type Resource, type Settings, Validation, Wire } from "@crm/core"
import * as Effect from "effect/Effect"
import type { z } from "zod"
import type { ErrorCode } from "../ErrorStatus.js"
import { created, noContent, ok } from "../Reply.js"
import { type Failure, type IdOutput, type KeyGuard, type Route, read, route, type Services, write } from "../Route.js"
import { actorOf } from "./principal.js"

/** An operation of the service, failing only with the codes its route declares. */
type Op<Args extends Array<unknown>, Code extends ErrorCode> = (
  organisation: Settings.Organisation,
  ...args: Args
) => Effect.Effect<unknown, Failure<Code>>

const PATCH_ERRORS = ["not_found", "validation_failed", "no_fields_to_update"] as const

/** The operations a resource may offer; each route needs only its own. */
export interface Operations<C, P, Q, CreateCode extends ErrorCode, UpdateCode extends ErrorCode, I> {
  readonly list: Op<[query: Q], "validation_failed">
  readonly create: Op<[input: C, actor: Resource.Actor], CreateCode>
  readonly get: Op<[id: I], "not_found">
  readonly update: Op<[id: I, patch: P, actor: Resource.Actor], (typeof PATCH_ERRORS)[number] | UpdateCode>
  readonly archive: Op<[id: I], "not_found">
}

export interface ResourceSpec<
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S,
  CreateCode extends ErrorCode = never,
  UpdateCode extends ErrorCode = never,
  I extends z.ZodType<string> = z.ZodType<string>
> {
  /** The service (its tag), or a view of it narrower than the tag's type. */
  readonly service: Effect.Effect<S, never, Id>
  /** Path segment and OpenAPI tag, e.g. `contacts`. */
  readonly plural: string
  readonly singular: string
  readonly pascal: string
  readonly schemas: {
    /** The records' id (branded): what `{id}` in the resource's paths names. */
    readonly id: I
    readonly create: C
    readonly patch: P
    readonly record: z.ZodType
    readonly page: z.ZodType
    readonly query: Q
  }
  readonly createErrors: ReadonlyArray<CreateCode>
  readonly updateErrors: ReadonlyArray<UpdateCode>
  /** The scope that writes (default `write`; quotes and invoices have their own). */
  readonly writeGuard?: KeyGuard
  readonly notes?: { readonly create?: string; readonly update?: string; readonly archive?: string }
}

type Offers<
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  K extends keyof Operations<unknown, unknown, unknown, never, never, unknown>,
  CreateCode extends ErrorCode = never,
  UpdateCode extends ErrorCode = never,
  I extends z.ZodType<string> = z.ZodType<string>
> = Pick<Operations<z.output<C>, z.output<P>, z.output<Q>, CreateCode, UpdateCode, IdOutput<I>>, K>

export const listRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "list">
>(
  spec: ResourceSpec<C, P, Q, Id, S, ErrorCode, ErrorCode>
): Route => {
  const syncs = "cursor" in spec.schemas.query.shape
  return route({
    method: "GET",
    path: `/${spec.plural}`,
    operationId: `list${spec.pascal}s`,
    tag: spec.plural,
    guard: read(),
    summary: syncs
      ? `List ${spec.plural}, newest first; or, for syncing, order=updated_at (oldest change first) with updated_since${"include_archived" in spec.schemas.query.shape ? " and include_archived" : ""}, walked by cursor (next_cursor)`
      : `List ${spec.plural}, newest first`,
    // The rules between the sync fields (a cursor belongs to its order and replaces offset) hold on
    // the object, which the core's query keeps free of: MCP tools pick single fields from it.
    query: syncs ? spec.schemas.query.superRefine(Wire.refineSyncQuery) : spec.schemas.query,
    success: { status: 200, schema: spec.schemas.page, description: `a page of ${spec.plural}` },
    errors: ["validation_failed"],
    handle: ({ principal, query }) =>
      Effect.flatMap(spec.service, (s) => s.list(principal.organisation, query as z.output<Q>)).pipe(Effect.map(ok))
  })
}

export const createRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "create", CreateCode>,
  CreateCode extends ErrorCode
>(
  spec: ResourceSpec<C, P, Q, Id, S, CreateCode, ErrorCode>
): Route =>
  route({
    method: "POST",
    path: `/${spec.plural}`,
    operationId: `create${spec.pascal}`,
    tag: spec.plural,
    guard: spec.writeGuard ?? write,
    summary: spec.notes?.create ?? `Create a ${spec.singular}`,
    body: spec.schemas.create,
    success: { status: 201, schema: spec.schemas.record, description: `the created ${spec.singular}` },
    errors: spec.createErrors,
    handle: ({ principal, body }) =>
      Effect.flatMap(spec.service, (s) =>
        s.create(principal.organisation, body as z.output<C>, actorOf(principal))
      ).pipe(Effect.map(created))
  })

export const getRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "get", never, never, I>,
  I extends z.ZodType<string>
>(
  spec: ResourceSpec<C, P, Q, Id, S, ErrorCode, ErrorCode, I>
): Route =>
  route({
    method: "GET",
    path: `/${spec.plural}/{id}`,
    params: { id: spec.schemas.id },
    operationId: `get${spec.pascal}`,
    tag: spec.plural,
    guard: read(),
    summary: `Get one ${spec.singular}`,
    success: { status: 200, schema: spec.schemas.record, description: `the ${spec.singular}` },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(spec.service, (s) => s.get(principal.organisation, params.id)).pipe(Effect.map(ok))
  })

export const patchRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "update", never, UpdateCode, I>,
  UpdateCode extends ErrorCode,
  I extends z.ZodType<string>
>(
  spec: ResourceSpec<C, P, Q, Id, S, ErrorCode, UpdateCode, I>
): Route =>
  route({
    method: "PATCH",
    path: `/${spec.plural}/{id}`,
    params: { id: spec.schemas.id },
    operationId: `update${spec.pascal}`,
    tag: spec.plural,
    guard: spec.writeGuard ?? write,
    summary: spec.notes?.update ?? `Change a ${spec.singular}: omitted fields keep their value, null clears a field`,
    body: spec.schemas.patch,
    patch: true,
    success: { status: 200, schema: spec.schemas.record, description: `the updated ${spec.singular}` },
    errors: [...PATCH_ERRORS, ...spec.updateErrors],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(spec.service, (s) =>
        s.update(principal.organisation, params.id, body as z.output<P>, actorOf(principal))
      ).pipe(Effect.map(ok))
  })

export const archiveRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "archive", never, never, I>,
  I extends z.ZodType<string>
>(
  spec: ResourceSpec<C, P, Q, Id, S, ErrorCode, ErrorCode, I>
): Route =>
  route({
    method: "DELETE",
    path: `/${spec.plural}/{id}`,
    params: { id: spec.schemas.id },
    operationId: `archive${spec.pascal}`,
    tag: spec.plural,
    guard: spec.writeGuard ?? write,
    summary: spec.notes?.archive ?? `Archive a ${spec.singular}: it answers 404 from then on`,
    success: { status: 204, description: "archived" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(spec.service, (s) => s.archive(principal.organisation, params.id)).pipe(Effect.as(noContent))
  })

/**
 * The five, and the batch, for a resource whose service is a full `ResourceService`; with `upsert`,
 * also the upsert by natural key (and the batch's upsert mode).
 */
export const resourceRoutes = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<
    C,
    P,
    Q,
    keyof Operations<unknown, unknown, unknown, never, never, unknown>,
    CreateCode,
    UpdateCode,
    I
  > &
    UpsertsOf<U, UpsertCode>,
  CreateCode extends ErrorCode,
  UpdateCode extends ErrorCode,
  I extends z.ZodType<string>,
  U extends z.ZodObject = never,
  UpsertCode extends ErrorCode = never
>(
  spec: ResourceSpec<C, P, Q, Id, S, CreateCode, UpdateCode, I>,
  upsert?: UpsertSpec<U, UpsertCode>
): ReadonlyArray<Route> => [
  listRoute(spec),
  createRoute(spec),
  batchRoute(spec, upsert),
  getRoute(spec),
  patchRoute(spec),
  archiveRoute(spec),
  ...(upsert === undefined ? [] : [upsertRoute(spec, upsert)])
]

/** What a resource with a natural key offers its upserts, failing only with the codes its route declares. */
export interface Upserts<U, Code extends ErrorCode> {
  readonly upsert: (
    organisation: Settings.Organisation,
    input: U,
    actor: Resource.Actor
  ) => Effect.Effect<Batch.Upserted<unknown>, Failure<Code>>
  readonly upsertMany: (
    organisation: Settings.Organisation,
    items: ReadonlyArray<U>,
    actor: Resource.Actor
  ) => Effect.Effect<ReadonlyArray<Batch.Upserted<unknown>>, Failure<"batch_failed">>
}

/** What `resourceRoutes` asks of the service for an upsert spec, and nothing without one. */
type UpsertsOf<U extends z.ZodObject, Code extends ErrorCode> = [U] extends [never]
  ? unknown
  : Upserts<z.output<U>, "validation_failed" | Code>

export interface UpsertSpec<U extends z.ZodObject, Code extends ErrorCode = ErrorCode> {
  /** A batch item and, with its key from the path, the body of `PUT /{plural}/by-{key}/{key}`. */
  readonly schema: U
  /** The natural key's field, e.g. `email`. */
  readonly key: keyof z.output<U> & string
  readonly errors: ReadonlyArray<Code>
  readonly note: string
}

/**
 * `POST /{plural}/batch`: up to 100 creates (or, for a resource with a natural key, upserts with
 * `"mode": "upsert"`) in one unit of work, all or nothing, answered in the order sent.
 */
export const batchRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "create", ErrorCode>,
  U extends z.ZodObject = never
>(
  spec: ResourceSpec<C, P, Q, Id, S, ErrorCode, ErrorCode>,
  upsert?: UpsertSpec<U>
): Route =>
  route({
    method: "POST",
    path: `/${spec.plural}/batch`,
    operationId: `batch${spec.pascal}s`,
    tag: spec.plural,
    guard: spec.writeGuard ?? write,
    summary:
      `Create up to ${Batch.MAX_BATCH_ITEMS} ${spec.plural} in one transaction, in the order sent: every one or none ` +
      `(the first refused item is 422 batch_failed naming its index). Each emits its own ${spec.singular}.created. ` +
      "An Idempotency-Key covers the whole batch; the rate limit counts it as one request" +
      (upsert === undefined
        ? ""
        : `. With "mode": "upsert", each item is an upsert keyed by ${upsert.key} (as PUT /${spec.plural}/by-${upsert.key}/{${upsert.key}}), answered with outcomes`),
    body:
      upsert === undefined
        ? Batch.createBody(spec.schemas.create)
        : Batch.createOrUpsertBody(spec.schemas.create, upsert.schema),
    batchBody: true,
    success: {
      status: 201,
      schema: Batch.batchResult(spec.schemas.record),
      description: `the ${spec.plural}, in the order sent`
    },
    errors: ["validation_failed", "batch_failed"],
    handle: ({ principal, body }) =>
      Effect.gen(function* () {
        const service = yield* spec.service
        const batches = yield* Batch.Batches
        const organisation = principal.organisation
        const actor = actorOf(principal)
        const batch = body as { readonly mode?: "create" | "upsert"; readonly items: ReadonlyArray<unknown> }
        if (batch.mode !== "upsert") {
          // Whatever code an item is refused with, the batch answers `batch_failed` naming the item.
          const records = yield* batches.creates(
            batch.items as ReadonlyArray<z.output<C>>,
            (item) =>
              service.create(organisation, item, actor) as Effect.Effect<
                unknown,
                Errors.DomainError | Errors.StorageError
              >
          )
          return created({ data: records })
        }
        // `resourceRoutes` gives an upsert spec only with a service that offers `Upserts`.
        const upserts = service as unknown as Upserts<z.output<U>, never>
        const done = yield* upserts.upsertMany(organisation, batch.items as ReadonlyArray<z.output<U>>, actor)
        return created({ data: done.map((one) => one.record), outcomes: done.map((one) => one.outcome) })
      })
  })

/**
 * `PUT /{plural}/by-{key}/{key}`: creates the record the natural key names (201) or changes only
 * the fields sent (200; an event only when something changed).
 */
export const upsertRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "create", ErrorCode>,
  U extends z.ZodObject,
  UpsertCode extends ErrorCode
>(
  spec: ResourceSpec<C, P, Q, Id, S, ErrorCode, ErrorCode>,
  upsert: UpsertSpec<U, UpsertCode>
): Route => {
  const key: string = upsert.key
  return route({
    method: "PUT",
    path: `/${spec.plural}/by-${key}/{${key}}`,
    operationId: `upsert${spec.pascal}By${key[0]!.toUpperCase()}${key.slice(1)}`,
    tag: spec.plural,
    guard: spec.writeGuard ?? write,
    summary: upsert.note,
    body: upsert.schema.partial({ [key]: true } as never),
    optionalBody: true,
    success: {
      status: 200,
      schema: spec.schemas.record,
      description: `the ${spec.singular}, changed (an event only when a field changed) or as it was`,
      created: `the ${spec.singular}, created`
    },
    errors: ["validation_failed", ...upsert.errors],
    handle: ({ principal, params, body }) =>
      Effect.gen(function* () {
        const fields = body as Record<string, unknown>
        const named = params[key]!
        const sent = fields[key]
        if (typeof sent === "string" && sent.trim().toLowerCase() !== named.trim().toLowerCase()) {
          return yield* Errors.invalidField(
            key,
            `must be the ${key} of the path (${named}) or left out`,
            "key_mismatch"
          )
        }
        // The body is parsed already (its amounts decoded): only the path's key is left to check.
        const keyed = yield* Validation.parse(upsert.schema.pick({ [key]: true } as never), { [key]: named })
        const input = { ...fields, ...(keyed as object) } as z.output<U>
        // `resourceRoutes` gives an upsert spec only with a service that offers `Upserts`.
        const service = (yield* spec.service) as unknown as Upserts<z.output<U>, UpsertCode>
        const done = yield* service.upsert(principal.organisation, input, actorOf(principal))
        return done.outcome === "created" ? created(done.record) : ok(done.record)
      })
  })
}
