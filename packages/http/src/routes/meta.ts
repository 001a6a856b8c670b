import { Access, Events } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { open, read, route } from "../Route.js"

export const meRoute = route({
  method: "GET",
  path: "/me",
  operationId: "getMe",
  tag: "meta",
  guard: read(false),
  summary: "The calling key, its organisation and the remaining request budget (spends none)",
  success: { status: 200, schema: Access.Me, description: "who is calling" },
  errors: [],
  handle: ({ principal, rateRemaining }) =>
    Effect.map(Access.Access, (access) => ok(access.me(principal, rateRemaining ?? 0)))
})

export const eventsRoute = route({
  method: "GET",
  path: "/events",
  operationId: "listEvents",
  tag: "meta",
  guard: read(),
  summary: "Events after the cursor, oldest first; follow next_cursor to never miss one",
  query: Events.EventsQuery,
  queryRefusal: "invalid_parameter",
  success: { status: 200, schema: Events.EventPage, description: "a page of events" },
  errors: ["invalid_parameter", "validation_failed"],
  handle: ({ principal, query }) =>
    Effect.flatMap(Events.Events, (events) => events.poll(principal.organisation.id, query)).pipe(
      Effect.map((page) => ({ status: 200, json: Events.renderEventPage(page) }))
    )
})

/** `document` renders the OpenAPI document as JSON text; it is asked on every request, so it should remember it. */
export const openApiRoute = (document: () => string) =>
  route({
    method: "GET",
    path: "/openapi.json",
    operationId: "getOpenApi",
    tag: "meta",
    guard: open,
    summary: "This document",
    success: { status: 200, schema: z.record(z.string(), z.unknown()), description: "the OpenAPI 3.1 document" },
    errors: [],
    handle: () => Effect.sync(() => ({ status: 200, json: document() }))
  })

export const metaArea: Area = {
  api: [meRoute, eventsRoute],
  schemaNames: [...named(Access, "Me"), ...named(Events, "EventEnvelope", "EventPage")]
}
