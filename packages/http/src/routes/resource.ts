/**
 * The REST routes of a plain resource (list, create, get, patch, archive). Contexts whose service
 * has these operations get identical mechanics; anything special is a route of its own.
 */
import { type Resource, type Settings, Wire } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { z } from "zod"
import type { ErrorCode } from "../ErrorStatus.js"
import { created, noContent, ok } from "../Reply.js"
import { type Guard, type Route, read, route, type Services, write } from "../Route.js"
import { actorOf, organisationOf } from "./principal.js"

type Op<Args extends Array<unknown>> = (
  organisation: Settings.Organisation,
  ...args: Args
) => Effect.Effect<unknown, unknown>

/** The operations a resource may offer; each route needs only its own. */
export interface Operations<C, P, Q> {
  readonly list: Op<[query: Q]>
  readonly create: Op<[input: C, actor: Resource.Actor]>
  readonly get: Op<[id: string]>
  readonly update: Op<[id: string, patch: P, actor: Resource.Actor]>
  readonly archive: Op<[id: string]>
}

export interface ResourceSpec<C extends z.ZodType, P extends z.ZodType, Q extends z.ZodObject, Id extends Services, S> {
  readonly service: Context.Tag<Id, S>
  /** Path segment and OpenAPI tag, e.g. `contacts`. */
  readonly plural: string
  readonly singular: string
  readonly pascal: string
  readonly schemas: {
    readonly create: C
    readonly patch: P
    readonly record: z.ZodType
    readonly page: z.ZodType
    readonly query: Q
  }
  readonly createErrors: ReadonlyArray<ErrorCode>
  readonly updateErrors: ReadonlyArray<ErrorCode>
  /** The scope that writes (default `write`; quotes and invoices have their own). */
  readonly writeGuard?: Guard
  readonly notes?: { readonly create?: string; readonly update?: string; readonly archive?: string }
}

type Offers<
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  K extends keyof Operations<unknown, unknown, unknown>
> = Pick<Operations<z.output<C>, z.output<P>, z.output<Q>>, K>

const using = <S, Id extends Services>(tag: Context.Tag<Id, S>, f: (service: S) => Effect.Effect<unknown, unknown>) =>
  Effect.flatMap(tag, f)

export const listRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "list">
>(
  spec: ResourceSpec<C, P, Q, Id, S>
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
      using(spec.service, (s) => s.list(organisationOf(principal), query as z.output<Q>)).pipe(Effect.map(ok))
  })
}

export const createRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "create">
>(
  spec: ResourceSpec<C, P, Q, Id, S>
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
      using(spec.service, (s) => s.create(organisationOf(principal), body as z.output<C>, actorOf(principal))).pipe(
        Effect.map(created)
      )
  })

export const getRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "get">
>(
  spec: ResourceSpec<C, P, Q, Id, S>
): Route =>
  route({
    method: "GET",
    path: `/${spec.plural}/{id}`,
    operationId: `get${spec.pascal}`,
    tag: spec.plural,
    guard: read(),
    summary: `Get one ${spec.singular}`,
    success: { status: 200, schema: spec.schemas.record, description: `the ${spec.singular}` },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      using(spec.service, (s) => s.get(organisationOf(principal), params.id!)).pipe(Effect.map(ok))
  })

export const patchRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "update">
>(
  spec: ResourceSpec<C, P, Q, Id, S>
): Route =>
  route({
    method: "PATCH",
    path: `/${spec.plural}/{id}`,
    operationId: `update${spec.pascal}`,
    tag: spec.plural,
    guard: spec.writeGuard ?? write,
    summary: spec.notes?.update ?? `Change a ${spec.singular}: omitted fields keep their value, null clears a field`,
    body: spec.schemas.patch,
    patch: true,
    success: { status: 200, schema: spec.schemas.record, description: `the updated ${spec.singular}` },
    errors: ["not_found", "validation_failed", "no_fields_to_update", ...spec.updateErrors],
    handle: ({ principal, params, body }) =>
      using(spec.service, (s) =>
        s.update(organisationOf(principal), params.id!, body as z.output<P>, actorOf(principal))
      ).pipe(Effect.map(ok))
  })

export const archiveRoute = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, "archive">
>(
  spec: ResourceSpec<C, P, Q, Id, S>
): Route =>
  route({
    method: "DELETE",
    path: `/${spec.plural}/{id}`,
    operationId: `archive${spec.pascal}`,
    tag: spec.plural,
    guard: spec.writeGuard ?? write,
    summary: spec.notes?.archive ?? `Archive a ${spec.singular}: it answers 404 from then on`,
    success: { status: 204, description: "archived" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      using(spec.service, (s) => s.archive(organisationOf(principal), params.id!)).pipe(Effect.as(noContent))
  })

/** All five, for a resource whose service is a full `ResourceService`. */
export const resourceRoutes = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Offers<C, P, Q, keyof Operations<unknown, unknown, unknown>>
>(
  spec: ResourceSpec<C, P, Q, Id, S>
): ReadonlyArray<Route> => [listRoute(spec), createRoute(spec), getRoute(spec), patchRoute(spec), archiveRoute(spec)]
