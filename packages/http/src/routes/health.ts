/** Health checks for load balancers and orchestrators: public, spending no budget, outside /api/v1. */
import { Health } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { open, route } from "../Route.js"

const tag = "health"

/**
 * Readiness, which `Opening` answers itself while the store opens: 503, whatever a probe of the
 * store would say, since there is none yet.
 */
export const readinessRoute = route({
  method: "GET",
  path: "/readyz",
  operationId: "getReadiness",
  tag,
  guard: open,
  summary: "Readiness: the store answers, so requests can be served; 503 with Retry-After while it does not",
  success: { status: 200, schema: Health.HealthStatus, description: "ready to serve" },
  errors: ["service_unavailable"],
  handle: () => Effect.flatMap(Health.Health, (health) => health.ready).pipe(Effect.map(ok))
})

export const healthRoutes = [
  route({
    method: "GET",
    path: "/healthz",
    operationId: "getHealth",
    tag,
    guard: open,
    summary: "Liveness: the process is up and answering (the store is not asked)",
    success: { status: 200, schema: Health.HealthStatus, description: "the process is up" },
    errors: [],
    // Asks no service: `Opening` serves it before the store is open, when there are none yet.
    handle: () => Effect.succeed(ok(Health.OK))
  }),
  readinessRoute
]

export const healthArea: Area = { root: healthRoutes, schemaNames: named(Health, "HealthStatus") }
