/**
 * The route table's types: a handler may fail only with the codes its route answers (those it
 * declares and those the pipeline adds for its guard, path, query and body), a key-guarded
 * handler is told its principal, and a path id is the branded id its route declares. Checked by the compiler (`npm run typecheck`): each
 * `@ts-expect-error` below fails the check if the line it covers compiles.
 */
import { type Access, Contacts, Deals, Errors, Ids, type Organisation } from "@crm/core"
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

  it("hands a path id over as the kind its route declares, and a service takes no other", () => {
    const get = (organisation: Access.Principal["organisation"], id: Contacts.ContactId) =>
      Effect.flatMap(Contacts.Contacts, (contacts) => contacts.get(organisation, id))
    // All but the path, its declared ids and the handler, which are what the cases vary.
    const card = {
      method: "GET",
      operationId: "card",
      summary: "",
      tag: "cards",
      guard: Route.read(),
      errors: [],
      success: { status: 200, description: "" }
    } as const
    Route.route({
      ...card,
      path: "/contacts/{id}/card",
      params: { id: Contacts.ContactId },
      handle: ({ principal, params }) => {
        expectTypeOf(params).toEqualTypeOf<{ readonly id: Contacts.ContactId }>()
        return get(principal.organisation, params.id).pipe(Effect.as({ status: 200 }))
      }
    })
    Route.route({
      ...card,
      path: "/contacts/{id}/card",
      handle: ({ principal, params }) =>
        // @ts-expect-error undeclared, a path id is a plain string
        get(principal.organisation, params.id).pipe(Effect.as({ status: 200 }))
    })
    Route.route({
      ...card,
      path: "/deals/{id}/card",
      params: { id: Deals.DealId },
      handle: ({ principal, params }) =>
        // @ts-expect-error a deal's id is not a contact's
        get(principal.organisation, params.id).pipe(Effect.as({ status: 200 }))
    })
  })

  it("brands an id by its schema, which checks it, or names one already known", () => {
    const checked = Contacts.ContactId.parse("0F8FAD5B-D9CB-469F-A165-70867728950E")
    expect(checked).toBe("0f8fad5b-d9cb-469f-a165-70867728950e")
    expectTypeOf(checked).toEqualTypeOf<Contacts.ContactId>()
    expect(Contacts.ContactId.safeParse("not-a-uuid").success).toBe(false)
    const known = Ids.brand(Deals.DealId, "0f8fad5b-d9cb-469f-a165-70867728950e")
    expectTypeOf(known).toEqualTypeOf<Deals.DealId>()
    expectTypeOf<Contacts.Contact["id"]>().toEqualTypeOf<Contacts.ContactId>()
    expectTypeOf<
      Parameters<Contacts.ContactRepository["Type"]["get"]>[0]
    >().toEqualTypeOf<Organisation.OrganisationId>()
    // @ts-expect-error a bare string is no organisation's id
    const tenant: Organisation.OrganisationId = "0f8fad5b-d9cb-469f-a165-70867728950e"
    expect(tenant).toBeDefined()
  })
})
