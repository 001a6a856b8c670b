/**
 * The server's metrics in Prometheus's text format: per request a counter and a histogram (by
 * method and route template, as the pipeline learns them), and at a scrape what the store holds
 * (`Health.gauges`: the webhook and mail queues, the event log's head, the pool). A registry of its
 * own, never prom-client's global one, so that an application embedding the server keeps its
 * metrics to itself.
 *
 * prom-client is loaded when metrics are made, not with this module: a server that serves none
 * (no admin token, no metrics port) never pays for loading it at start.
 */
import type { IncomingMessage } from "node:http"
import { Errors, Health } from "@crm/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { type Answer, errorBody, METRICS_PATH, requestIdOf } from "./Edge.js"

export interface Metrics {
  /** One request answered: a counter increment and a histogram observation, nothing more. */
  readonly observe: (method: string, route: string | undefined, status: number, seconds: number) => void
  /** The metrics as text, with the store's gauges read now. */
  readonly scrape: Effect.Effect<
    { readonly contentType: string; readonly text: string },
    Errors.StorageError,
    Health.Health
  >
}

/** The route label of a request no route matched: a label per unknown path would have no end. */
const UNMATCHED = "unmatched"

/** From a millisecond to ten seconds: a request costs a few milliseconds, a slow one hundreds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

const ageSeconds = (now: number, oldestAt: string | null): number =>
  oldestAt === null ? 0 : Math.max(0, (now - Date.parse(oldestAt)) / 1000)

/** A metric's child for a set of labels, made at its first use. */
const child = <A>(children: Map<string, A>, key: string, make: () => A): A => {
  const known = children.get(key)
  if (known !== undefined) return known
  const made = make()
  children.set(key, made)
  return made
}

export const make: Effect.Effect<Metrics> = Effect.map(
  // Its default export, which is module.exports wherever it is loaded from: a bundle that loads it
  // as a chunk of its own (the server's) gives it no named exports.
  Effect.promise(() => import("prom-client")),
  ({ default: prom }): Metrics => {
    const registers = [new prom.Registry()]
    const registry = registers[0]!
    const requests = new prom.Counter({
      name: "crm_http_requests_total",
      help: "Requests answered, by method, route template and status",
      labelNames: ["method", "route", "status"] as const,
      registers
    })
    const duration = new prom.Histogram({
      name: "crm_http_request_duration_seconds",
      help: "Time from a request's arrival to its answer, by method and route template",
      labelNames: ["method", "route"] as const,
      buckets: BUCKETS,
      registers
    })
    const gauge = (name: string, help: string) => new prom.Gauge({ name, help, registers })
    const deliveries = gauge(
      "crm_webhook_deliveries_pending",
      "Webhook deliveries waiting for a first attempt or a retry"
    )
    const deliveriesAge = gauge(
      "crm_webhook_deliveries_oldest_pending_age_seconds",
      "How long the oldest pending webhook delivery has waited (0 when none waits)"
    )
    const mail = gauge("crm_mail_queued", "Mail queued in the outbox, not yet sent")
    const mailAge = gauge(
      "crm_mail_oldest_queued_age_seconds",
      "How long the oldest queued mail has waited (0 when none waits)"
    )
    const head = gauge("crm_events_head_id", "The id of the newest event in the event log")
    // Registered at the first scrape that finds a pool: a store without one (PGlite) reports none.
    let pool: { readonly total: typeof head; readonly idle: typeof head; readonly waiting: typeof head } | undefined
    // prom-client hashes a label object on every call (its keys sorted and joined); the children
    // it hands out for a set of labels skip that, and there are only as many as route templates,
    // methods and statuses.
    const counted = new Map<string, { readonly inc: () => void }>()
    const timed = new Map<string, { readonly observe: (seconds: number) => void }>()
    return {
      observe: (method, route, status, seconds) => {
        const label = route ?? UNMATCHED
        const path = `${method} ${label}`
        child(timed, path, () => duration.labels({ method, route: label })).observe(seconds)
        child(counted, `${path} ${status}`, () => requests.labels({ method, route: label, status })).inc()
      },
      scrape: Effect.gen(function* () {
        const gauges = yield* (yield* Health.Health).gauges
        const now = yield* Clock.currentTimeMillis
        deliveries.set(gauges.webhookDeliveries.count)
        deliveriesAge.set(ageSeconds(now, gauges.webhookDeliveries.oldestAt))
        mail.set(gauges.mail.count)
        mailAge.set(ageSeconds(now, gauges.mail.oldestAt))
        head.set(Number(gauges.eventsHead))
        if (gauges.connections._tag === "Some") {
          pool ??= {
            total: gauge("crm_db_pool_connections", "Database connections open in the pool, in use or idle"),
            idle: gauge("crm_db_pool_connections_idle", "Database connections open and idle"),
            waiting: gauge("crm_db_pool_waiting", "Statements waiting for a database connection")
          }
          pool.total.set(gauges.connections.value.total)
          pool.idle.set(gauges.connections.value.idle)
          pool.waiting.set(gauges.connections.value.waiting)
        }
        const text = yield* Effect.promise(() => registry.metrics())
        return { contentType: registry.contentType, text }
      })
    }
  }
)

const json = "application/json; charset=utf-8"

const refusal = (status: number, code: string, detail: string, requestId: string, extra = {}): Answer => ({
  status,
  headers: { "content-type": json, "x-request-id": requestId, ...extra },
  body: errorBody(code, detail, requestId)
})

/**
 * `GET /metrics` and nothing else, without a token: for a port of its own (CRM_METRICS_PORT),
 * which the operator keeps off the public network.
 */
export const app =
  (metrics: Metrics) =>
  (incoming: IncomingMessage): Effect.Effect<Answer, never, Health.Health> => {
    const requestId = requestIdOf(undefined)
    const path = new URL(incoming.url ?? "/", "http://localhost").pathname
    if (path !== METRICS_PATH) return Effect.succeed(refusal(404, "not_found", `no route for ${path}`, requestId))
    if (incoming.method !== "GET") {
      return Effect.succeed(refusal(405, "method_not_allowed", "allowed: GET", requestId, { allow: "GET" }))
    }
    return metrics.scrape.pipe(
      Effect.map(
        ({ contentType, text }): Answer => ({
          status: 200,
          headers: { "content-type": contentType, "x-request-id": requestId },
          body: text
        })
      ),
      Effect.catchAll((error) =>
        Effect.as(
          Effect.logWarning("the metrics could not be read from the database", error),
          error instanceof Errors.StorageUnavailable
            ? refusal(503, error.code, error.detail, requestId, { "retry-after": String(error.retryAfterSeconds) })
            : refusal(500, "internal_error", "the metrics could not be read; see the server's log", requestId)
        )
      )
    )
  }
