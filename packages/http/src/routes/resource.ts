/**
 * The five REST routes of a plain resource (list, create, get, patch, archive). Contexts whose
 * service has this shape get identical mechanics; anything special is a route of its own.
 */
import type { Resource } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { z } from "zod"
import type { ErrorCode } from "../ErrorStatus.js"
import { created, noContent, ok } from "../Reply.js"
import { type Route, read, route, type Services, write } from "../Route.js"
import { actorOf, organisationOf } from "./principal.js"

export interface ResourceSpec<
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Resource.ResourceService<z.output<C>, z.output<P>, z.output<Q>, unknown, unknown, unknown>
> {
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
  readonly notes?: { readonly create?: string; readonly update?: string; readonly archive?: string }
}

export const resourceRoutes = <
  C extends z.ZodType,
  P extends z.ZodType,
  Q extends z.ZodObject,
  Id extends Services,
  S extends Resource.ResourceService<z.output<C>, z.output<P>, z.output<Q>, unknown, unknown, unknown>
>(
  spec: ResourceSpec<C, P, Q, Id, S>
): ReadonlyArray<Route> => {
  const { plural, singular, pascal, schemas } = spec
  const withService = <A>(f: (service: S) => Effect.Effect<A, unknown>) => Effect.flatMap(spec.service, f)
  return [
    route({
      method: "GET",
      path: `/${plural}`,
      operationId: `list${pascal}s`,
      tag: plural,
      guard: read(),
      summary: `List live ${plural}, newest first`,
      query: schemas.query,
      success: { status: 200, schema: schemas.page, description: `a page of ${plural}` },
      errors: ["validation_failed"],
      handle: ({ principal, query }) =>
        withService((s) => s.list(organisationOf(principal), query as z.output<Q>)).pipe(Effect.map(ok))
    }),
    route({
      method: "POST",
      path: `/${plural}`,
      operationId: `create${pascal}`,
      tag: plural,
      guard: write,
      summary: spec.notes?.create ?? `Create a ${singular}`,
      body: schemas.create,
      success: { status: 201, schema: schemas.record, description: `the created ${singular}` },
      errors: spec.createErrors,
      handle: ({ principal, body }) =>
        withService((s) => s.create(organisationOf(principal), body as z.output<C>, actorOf(principal))).pipe(
          Effect.map(created)
        )
    }),
    route({
      method: "GET",
      path: `/${plural}/{id}`,
      operationId: `get${pascal}`,
      tag: plural,
      guard: read(),
      summary: `Get one ${singular}`,
      success: { status: 200, schema: schemas.record, description: `the ${singular}` },
      errors: ["not_found"],
      handle: ({ principal, params }) =>
        withService((s) => s.get(organisationOf(principal), params.id!)).pipe(Effect.map(ok))
    }),
    route({
      method: "PATCH",
      path: `/${plural}/{id}`,
      operationId: `update${pascal}`,
      tag: plural,
      guard: write,
      summary: spec.notes?.update ?? `Change a ${singular}: omitted fields keep their value, null clears a field`,
      body: schemas.patch,
      patch: true,
      success: { status: 200, schema: schemas.record, description: `the updated ${singular}` },
      errors: ["not_found", "validation_failed", "no_fields_to_update", ...spec.updateErrors],
      handle: ({ principal, params, body }) =>
        withService((s) =>
          s.update(organisationOf(principal), params.id!, body as z.output<P>, actorOf(principal))
        ).pipe(Effect.map(ok))
    }),
    route({
      method: "DELETE",
      path: `/${plural}/{id}`,
      operationId: `archive${pascal}`,
      tag: plural,
      guard: write,
      summary: spec.notes?.archive ?? `Archive a ${singular}: it answers 404 from then on`,
      success: { status: 204, description: "archived" },
      errors: ["not_found"],
      handle: ({ principal, params }) =>
        withService((s) => s.archive(organisationOf(principal), params.id!)).pipe(Effect.as(noContent))
    })
  ]
}
