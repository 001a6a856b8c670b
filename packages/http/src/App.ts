/**
 * The request pipeline: the composition of the edge's stages (`edge/`), each a module of its own.
 * A request is matched to its route (`match`), its caller admitted (`authenticate`, then `budget`:
 * scope, plan and the rate budget's headers), its input read and validated (`readBody`), its
 * handler run once per idempotency key (`idempotency`, `handle`), and its answer or failure rendered
 * (`render`) and observed (`observe`). Each stage that learns something makes a new `Reached`, and
 * the answer is made from the last one, whatever stage the request ended at.
 *
 * It reads node's `IncomingMessage` and answers an `Answer` that `Listener` writes: one fiber per
 * request and no request or response objects of its own, because per-request wrappers, routers and
 * spans cost more CPU than the statements a request needs (see docs/benchmarks.md).
 */
import type { IncomingMessage } from "node:http"
import { type Organisation, type People, Validation } from "@crm/core"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { type Answer, header, MAX_URL_BYTES, METRICS_PATH, requestIdOf } from "./Edge.js"
import {
  type AccessTokens,
  admitVisitor,
  authenticateAdmin,
  authenticateBearer,
  authenticateKey,
  authenticateSession,
  challenged,
  clientAddressOf,
  deviceOf,
  expectedOrigin,
  servedAsKey
} from "./edge/authenticate.js"
import { permits } from "./edge/budget.js"
import { type Endpoint, serveEndpoint } from "./edge/endpoint.js"
import { once } from "./edge/idempotency.js"
import { type Matched, makeMatch } from "./edge/match.js"
import { makeObserve, type RequestLine } from "./edge/observe.js"
import { makeSiteRefusal } from "./edge/origin.js"
import { type EdgeFailure, Reached, type Served } from "./edge/Reached.js"
import { readInput } from "./edge/readBody.js"
import { answer, renderFailure } from "./edge/render.js"
import type { Metrics } from "./Metrics.js"
import * as Outage from "./Outage.js"
import { HttpFailure } from "./Reply.js"
import { isWriting, type Services, usesStore } from "./Route.js"
import type { Mounted } from "./Router.js"

export type { AccessTokens, Endpoint, RequestLine }

export interface HttpOptions<R = never> {
  /** The admin API answers only when a token is configured. */
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  /** Proxies whose `X-Forwarded-For` is believed; anything else is ignored (allow-lists use the socket address). */
  readonly trustedProxies: ReadonlyArray<string>
  readonly maxBodyBytes: number
  /** Counts and times every request, served at `GET /metrics` behind the admin token (404 without one); left out, neither. */
  readonly metrics?: Metrics
  /** Told of every request once it is answered, as the request log records it. */
  readonly requestLog?: (line: RequestLine) => void
  /** The MCP authorization server's tokens, accepted at the endpoints beside keys; left out, keys only. */
  readonly accessTokens?: AccessTokens
  /** Paths served outside the REST router (the MCP endpoint), for any method. */
  readonly endpoints?: ReadonlyArray<Endpoint<R>>
  /**
   * Where the CRM is served (CRM_PUBLIC_URL): the origin a signed-in person's writes must come from
   * (else the request's `Host`), and https there makes the session cookie `Secure`.
   */
  readonly publicUrl?: string
  /** Origins besides the public URL's whose pages may call the endpoints (CRM_ALLOWED_ORIGINS; see `edge/origin.ts`). */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** The address the server listens on (HOST): on loopback, an endpoint's `Host` must name this machine. */
  readonly listenHost?: string
}

const NO_STORE = { "cache-control": "no-store" }

/**
 * A person's answer (signing in, their session, their organisation's settings): never kept by a
 * cache, as it may hold a session's CSRF token or a key shown once; the session cookie is `Secure`
 * when the site is served over https, which only the edge knows.
 */
const personal =
  (secure: boolean) =>
  (answered: Answer): Answer => {
    const cookie = answered.headers["set-cookie"]
    return {
      status: answered.status,
      headers: Object.assign(
        {},
        answered.headers,
        NO_STORE,
        secure && cookie !== undefined ? { "set-cookie": `${cookie}; Secure` } : undefined
      ),
      body: answered.body
    }
  }

export const makeApp = <R = never>(table: ReadonlyArray<Mounted>, options: HttpOptions<R>) => {
  const match = makeMatch(table)
  const clientAddress = clientAddressOf(options.trustedProxies)
  const outage = Outage.make()
  const observe = makeObserve(options.metrics, options.requestLog)
  const originOf = expectedOrigin(options.publicUrl, options.trustedProxies)
  const siteRefusal = makeSiteRefusal(options)
  const clientOf = (incoming: IncomingMessage): People.Client => ({
    address: clientAddress(incoming),
    device: deviceOf(incoming)
  })
  const personalAnswer = personal(options.publicUrl?.toLowerCase().startsWith("https:") === true)

  const settle =
    observe === undefined
      ? answer
      : (reached: Reached, served: Served): Answer => {
          const answered = answer(reached, served)
          observe(reached, answered)
          return answered
        }

  /** A failure rendered as the answer of the stage the request reached. */
  const failed =
    (reached: Reached) =>
    (cause: Cause.Cause<EdgeFailure>): Effect.Effect<Answer> =>
      Effect.map(renderFailure(cause, reached.requestId, outage), (stored) =>
        settle(reached, Object.assign({ replayed: false }, stored))
      )

  /** Ends a request at the stage it reached: its answer, or its failure rendered. */
  const end = <Rq>(
    reached: Reached,
    served: Effect.Effect<Served, EdgeFailure, Rq>
  ): Effect.Effect<Answer, never, Rq> =>
    Effect.matchCauseEffect(served, {
      onFailure: failed(reached),
      onSuccess: (done) => Effect.succeed(settle(reached, done))
    })

  /** A key admitted (or the request ended by its refusal), then `then` with what it reached. */
  const withKey = <Rq>(
    reached: Reached,
    spendsBudget: boolean,
    then: (admitted: Reached) => Effect.Effect<Answer, never, Rq>,
    admit = authenticateKey(reached, clientAddress(reached.incoming), spendsBudget)
  ) => Effect.matchCauseEffect(admit, { onFailure: failed(reached), onSuccess: then })

  /** A route admitted: its input, its handler (or its replay), then, in an outage, the store answered. */
  const admitted = (reached: Reached, matched: Matched, url: URL): Effect.Effect<Served, EdgeFailure, Services> => {
    const { route, params } = matched
    // A natural key in the path (`/products/by-sku/{sku}`) reaches storage as any body string does.
    const checked = matched.keyed ? Validation.refuseUnsafe(params) : Either.void
    if (Either.isLeft(checked)) return Effect.fail(checked.left)
    return readInput(route, reached.incoming, url, options.maxBodyBytes).pipe(
      Effect.flatMap((input) => once(route, reached, url, params, input, outage)),
      // A route that needs the store and succeeded has reached it.
      Effect.tap((served) =>
        outage.active() && served.status < 300 && usesStore(route) ? outage.answered : Effect.void
      )
    )
  }

  /** A caller admitted without a key (or the request ended by its refusal), then the route answered as theirs. */
  const withCaller = (
    reached: Reached,
    admit: Effect.Effect<Reached, EdgeFailure, Services>,
    matched: Matched,
    url: URL
  ): Effect.Effect<Answer, never, Services> =>
    Effect.map(
      Effect.matchCauseEffect(admit, {
        onFailure: failed(reached),
        onSuccess: (caller) => end(caller, admitted(caller, matched, url))
      }),
      personalAnswer
    )

  const serveRoute = (start: Reached, url: URL): Effect.Effect<Answer, never, Services> => {
    const matched = match(start.method, url.pathname)
    if (matched instanceof HttpFailure) return end(start, matched)
    const reached = start.matched(matched.template)
    const guard = matched.route.guard
    if (guard.kind === "public") return end(reached, admitted(reached, matched, url))
    if (guard.kind === "admin") {
      const operator = reached.called(clientOf(reached.incoming))
      return end(
        operator,
        Effect.zipRight(authenticateAdmin(options.adminToken, reached.incoming), admitted(operator, matched, url))
      )
    }
    if (guard.kind === "session") {
      const organisationId = guard.organisation ? (matched.params.id as Organisation.OrganisationId) : undefined
      const admit = authenticateSession(
        reached,
        clientAddress(reached.incoming),
        isWriting(matched.route),
        originOf(reached.incoming),
        organisationId
      )
      return withCaller(reached, admit, matched, url)
    }
    if (guard.kind === "visitor") {
      const admit = admitVisitor(
        reached,
        clientOf(reached.incoming),
        isWriting(matched.route),
        originOf(reached.incoming)
      )
      return withCaller(reached, admit, matched, url)
    }
    return withKey(reached, guard.spendsBudget, (key) => {
      const permitted = permits(matched.route, guard, key.principal!)
      return end(
        key,
        Either.isLeft(permitted)
          ? Effect.fail(permitted.left)
          : servedAsKey(key.principal!, isWriting(matched.route), admitted(key, matched, url))
      )
    })
  }

  /**
   * An endpoint outside the router: a request another site could have sent refused (`origin`),
   * then admission as REST (one unit of budget), then its own handler.
   */
  const serveEndpointAt = (start: Reached, endpoint: Endpoint<R>, url: URL) => {
    const reached = start.matched(endpoint.path)
    const refused = siteRefusal(reached.incoming)
    if (refused !== undefined) return end(reached, refused)
    const tokens = options.accessTokens
    const admit = authenticateBearer(reached, clientAddress(reached.incoming), true, tokens)
    const answered = withKey(
      reached,
      true,
      (key) => {
        // The endpoint's calls may write (MCP's tools): answered by the primary, then fenced as a write.
        const served = servedAsKey(
          key.principal!,
          true,
          serveEndpoint(endpoint, key.incoming, url, key.principal!, options.maxBodyBytes)
        )
        // Admitted means the store answered (the budget is kept there).
        return end(key, outage.active() ? Effect.zipRight(outage.answered, served) : served)
      },
      admit
    )
    return tokens === undefined ? answered : Effect.map(answered, challenged(tokens, reached.incoming))
  }

  /** The metrics, to the admin token, as the admin API answers it. */
  const serveMetrics = (start: Reached, metrics: Metrics) => {
    const reached = start.matched(METRICS_PATH)
    if (reached.method !== "GET")
      return end(reached, HttpFailure.of("method_not_allowed", "allowed: GET", { allow: "GET" }))
    return end(
      reached,
      Effect.zipRight(
        authenticateAdmin(options.adminToken, reached.incoming),
        Effect.map(metrics.scrape, ({ contentType, text }) => ({
          status: 200,
          headers: { "content-type": contentType },
          body: text,
          replayed: false
        }))
      )
    )
  }

  return (incoming: IncomingMessage): Effect.Effect<Answer, never, Services | R> => {
    const start = Reached.start(incoming, requestIdOf(header(incoming.headers, "x-request-id")))
    const target = incoming.url ?? "/"
    if (target.length > MAX_URL_BYTES) {
      return end(start, HttpFailure.of("uri_too_long", `the URL exceeds the limit of ${MAX_URL_BYTES} bytes`))
    }
    const url = new URL(target, "http://localhost")
    const endpoint = options.endpoints?.find((candidate) => candidate.path === url.pathname)
    if (endpoint !== undefined) return serveEndpointAt(start, endpoint, url)
    if (url.pathname === METRICS_PATH && options.metrics !== undefined) return serveMetrics(start, options.metrics)
    return serveRoute(start, url)
  }
}
