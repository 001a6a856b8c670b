/**
 * The route table's types: a handler may fail only with the codes its route answers (those it
 * declares and those the pipeline adds for its guard, path, query and body), and a key-guarded
 * handler is told its principal. Checked by the compiler (`npm run typecheck`): each
 * `@ts-expect-error` below fails the check if the line it covers compiles.
 */
import { type Access, Errors } from "@crm/core"
import { Route } from "@crm/http"
import * as Effect from "effect/Effect"
import { describe, expect, expectTypeOf, it } from "vitest"
import { z } from "zod"

const Thing = z.object({ id: z.string() })
const notFound = () => new Errors.NotFound({ detail: "no such thing" })
const conflict = () => new Errors.EmailAlreadyExists({ detail: "taken" })

describe("route", () => {
  it("refuses a handler that can fail with a code its route does not declare", () => {
    const declared = Route.route({
      method: "POST",
      path: "/things",
      operationId: "createThing",
      summary: "",
      tag: "things",
      guard: Route.write,
      body: Thing,
      success: { status: 201, schema: Thing, description: "the thing" },
      errors: ["email_already_exists"],
      handle: ({ body }) => (body.id === "" ? Effect.fail(conflict()) : Effect.succeed({ status: 201, body }))
    })
    expect(declared.errors).toEqual(["email_already_exists"])

    Route.route({
      method: "POST",
      path: "/things",
      operationId: "createThing",
      summary: "",
      tag: "things",
      guard: Route.write,
      body: Thing,
      success: { status: 201, schema: Thing, description: "the thing" },
      errors: [],
      // @ts-expect-error email_already_exists is neither declared nor added by the pipeline
      handle: ({ body }) => (body.id === "" ? Effect.fail(conflict()) : Effect.succeed({ status: 201, body }))
    })
  })

  it("lets a handler fail with the codes the pipeline answers for its route, and only those", () => {
    // A path id: the pipeline answers not_found for it anyway.
    Route.route({
      method: "GET",
      path: "/things/{id}",
      operationId: "getThing",
      summary: "",
      tag: "things",
      guard: Route.read(),
      success: { status: 200, schema: Thing, description: "the thing" },
      errors: [],
      handle: ({ params }) => Effect.fail(notFound()).pipe(Effect.as({ status: 200, body: { id: params.id! } }))
    })
    // No path id, nothing declared: not_found is no answer of this route.
    Route.route({
      method: "GET",
      path: "/things",
      operationId: "getThings",
      summary: "",
      tag: "things",
      guard: Route.read(),
      success: { status: 200, schema: Thing, description: "the thing" },
      errors: [],
      // @ts-expect-error not_found is neither declared nor added by the pipeline for this path
      handle: () => Effect.fail(notFound()).pipe(Effect.as({ status: 200, body: { id: "a" } }))
    })
    // The store failing is the pipeline's 500 or 503 on any route that reaches it.
    Route.route({
      method: "GET",
      path: "/things",
      operationId: "listThings",
      summary: "",
      tag: "things",
      guard: Route.read(),
      success: { status: 200, schema: Thing, description: "the thing" },
      errors: [],
      handle: () =>
        Effect.fail(new Errors.StorageError({ message: "down" })).pipe(Effect.as({ status: 200, body: { id: "a" } }))
    })
  })

  it("refuses a failure that carries no code at all", () => {
    Route.route({
      method: "GET",
      path: "/things",
      operationId: "listThings",
      summary: "",
      tag: "things",
      guard: Route.read(),
      success: { status: 200, schema: Thing, description: "the thing" },
      errors: [],
      // @ts-expect-error a failure without a code would be an undocumented 500
      handle: () => Effect.fail(new Error("boom")).pipe(Effect.as({ status: 200, body: { id: "a" } }))
    })
  })

  it("tells a key-guarded handler its principal, and others none", () => {
    Route.route({
      method: "GET",
      path: "/me",
      operationId: "me",
      summary: "",
      tag: "meta",
      guard: Route.read(),
      errors: [],
      success: { status: 200, description: "" },
      handle: ({ principal }) => {
        expectTypeOf(principal).toEqualTypeOf<Access.Principal>()
        return Effect.succeed({ status: 200 })
      }
    })
    Route.route({
      method: "GET",
      path: "/health",
      operationId: "health",
      summary: "",
      tag: "meta",
      guard: Route.open,
      errors: [],
      success: { status: 200, description: "" },
      handle: ({ principal }) => {
        expectTypeOf(principal).toEqualTypeOf<undefined>()
        return Effect.succeed({ status: 200 })
      }
    })
  })

  it("types the reply's body from the success schema", () => {
    Route.route({
      method: "GET",
      path: "/things",
      operationId: "listThings",
      summary: "",
      tag: "things",
      guard: Route.read(),
      success: { status: 200, schema: Thing, description: "the thing" },
      errors: [],
      // @ts-expect-error the body lacks the schema's id
      handle: () => Effect.succeed({ status: 200, body: { name: "a" } })
    })
  })
})
