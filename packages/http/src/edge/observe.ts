/**
 * Stage: each request answered is one count and one observation of the metrics and one line of the
 * request log, made from where it got to. A plain function, not Effect's logger: a line through the
 * logger's fiber machinery cost more per request than the rest of the log together.
 */
import type { People } from "@crm/core"
import type { Answer } from "../Edge.js"
import type { Metrics } from "../Metrics.js"
import type { Reached } from "./Reached.js"

/**
 * A request as the request log records it: never its key, the admin token, a cookie or a body, and
 * the route's template rather than its path, which may hold a secret (an invitation's token).
 */
export interface RequestLine {
  readonly request_id: string
  readonly method: string
  /** The route template (`/api/v1/contacts/{id}`) or the endpoint's path; null when none matched. */
  readonly route: string | null
  readonly status: number
  readonly duration_ms: number
  readonly organisation_id: string | null
  readonly key_id: string | null
}

/** The organisation a signed-in person acts in, when the route is one of its settings. */
const organisationOf = (caller: Reached["caller"]): string | null =>
  (caller as Partial<People.MemberPrincipal> | undefined)?.organisationId ?? null

export const lineOf = (reached: Reached, answer: Answer, ms: number): RequestLine => ({
  request_id: reached.requestId,
  method: reached.method,
  route: reached.route ?? null,
  status: answer.status,
  duration_ms: Math.round(ms * 1000) / 1000,
  organisation_id: reached.principal?.organisation.id ?? organisationOf(reached.caller),
  key_id: reached.principal?.key.id ?? null
})

/** What observes an answered request, or nothing when neither metrics nor a log are asked for. */
export const makeObserve = (
  metrics: Metrics | undefined,
  requestLog: ((line: RequestLine) => void) | undefined
): ((reached: Reached, answer: Answer) => void) | undefined =>
  metrics === undefined && requestLog === undefined
    ? undefined
    : (reached, answer) => {
        const ms = performance.now() - reached.started
        metrics?.observe(reached.method, reached.route, answer.status, ms / 1000)
        requestLog?.(lineOf(reached, answer, ms))
      }
