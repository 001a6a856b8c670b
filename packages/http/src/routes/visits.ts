import { Visits } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { analyticsWrite, route } from "../Route.js"

// 202: the visit is recorded, but nothing about it can be read back through the API.
export const visitRoutes = [
  route({
    method: "POST",
    path: "/visits",
    operationId: "recordVisit",
    tag: "visits",
    guard: analyticsWrite,
    summary:
      "Record a page view; it is attached to contact_id when given (a live contact), else to the contact its visitor_id was last linked to by a visit or a form submission",
    body: Visits.VisitCreate,
    success: { status: 202, schema: Visits.Visit, description: "the recorded visit" },
    errors: ["validation_failed"],
    handle: ({ principal, body }) =>
      Effect.flatMap(Visits.Visits, (visits) => visits.record(principal.organisation, body)).pipe(
        Effect.map((visit) => ({ status: 202, body: visit }))
      )
  })
]

export const visitsArea: Area = { api: visitRoutes, schemaNames: named(Visits, "Visit", "VisitCreate") }
