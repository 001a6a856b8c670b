/**
 * The request pipeline, as named stages: the route (`matchRoute`), admission (`admitTo`: the key
 * and its rate budget by the core's `Access.admit`, then scope and plan), the input (`readInput`:
 * body, query and body schemas), the handler once per idempotency key (`execute`); any stage's
 * failure is rendered once, by `dispatch`, which also gives every answer the request's id and budget
 * headers. Handlers only translate.
 *
 * It reads node's `IncomingMessage` and answers an `Answer` that `Listener` writes: one fiber per
 * request and no request or response objects of its own, because per-request wrappers, routers and
 * spans cost more CPU than the statements a request needs (see docs/benchmarks.md).
 */

import { createHash, timingSafeEqual } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { Readable } from "node:stream"
import { Access, Batch, Errors, Idempotency, Validation, type Wire } from "@crm/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { type Answer, errorBody, header, MAX_STREAMED_BODY_BYTES, MAX_URL_BYTES, METRICS_PATH, requestIdOf } from "./Edge.js"
import { statusOf } from "./ErrorStatus.js"
import type { Metrics } from "./Metrics.js"
import * as Outage from "./Outage.js"
import { HttpFailure, type Reply } from "./Reply.js"
import { isWriting, type Route, type Services, usesStore } from "./Route.js"
import { isIdParam, type Mounted, makeRouter } from "./Router.js"
import * as StoredResponse from "./StoredResponse.js"

export interface HttpOptions<R = never> {
  /** The admin API answers only when a token is configured. */
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  /** Proxies whose `X-Forwarded-For` is believed; anything else is ignored (allow-lists use the socket address). */
  readonly trustedProxies: ReadonlyArray<string>
  readonly maxBodyBytes: number
  /**
   * Counts and times every request, and serves them at `GET /metrics` behind the admin token
   * (404 without one, as the admin API); left out, neither.
   */
  readonly metrics?: Metrics
  /**
   * Told of every request once it is answered, as the request log records it. A plain function,
   * not Effect's logger: a line through the logger's fiber machinery cost more per request than
   * the rest of the log together.
   */
  readonly requestLog?: (line: RequestLine) => void
  /** Paths served outside the REST router (the MCP endpoint), for any method. */
  readonly endpoints?: ReadonlyArray<Endpoint<R>>
}

/**
 * A path answered by its own handler with the request as a web `Request` (the MCP endpoint): it
 * gets the same request id, authentication, rate budget (one unit per request) and error rendering
 * as REST, but no scope check (its handler checks its own), no idempotency and no REST body
 * parsing; a body declared larger than `maxBodyBytes` is refused with 413.
 */
export interface Endpoint<R = never> {
  readonly path: string
  readonly handle: (request: Request, principal: Access.Principal) => Effect.Effect<Response, unknown, Services | R>
}

/**
 * What the request log learns of a request while the pipeline serves it: one record per request,
 * filled in by the stages that know (the route match, authentication), read once it is answered.
 */
interface Seen {
  /** The route template as served (`/api/v1/contacts/{id}`) or the endpoint's path; undefined when none matched. */
  route: string | undefined
  principal: Access.Principal | undefined
}

/** A request as the request log records it: never its key, the admin token or a body. */
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

type Stored = StoredResponse.StoredResponse
/** A response as a handler's reply renders: JSON text, or the bytes of a file. */
type Rendered = Omit<Stored, "body"> & { readonly body: string | Uint8Array | Response }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i
const NDJSON_TYPE = /^application\/(?:x-ndjson|jsonl|x-jsonlines)\s*(?:;|$)/i

const json = "application/json; charset=utf-8"
const JSON_HEADERS = { "content-type": json }
const REPLAYED_HEADERS = { "idempotency-replayed": "true" }

// Headers are merged with `Object.assign`, not spread. On node 20's V8, an object made by spreading
// a non-empty one and then given more properties gets hidden classes of its own on every call,
// made in the old generation, and each request's headers and what they reached were promoted with
// them instead of dying young (docs/benchmarks.md, seventh pass).

/** `encode` is the route's: money leaves the records as text and is written as JSON numbers. */
const render = (reply: Reply, encode: Wire.Convert | undefined): Rendered =>
  reply.stream !== undefined
    ? { status: reply.status, headers: reply.headers ?? {}, body: new Response(reply.stream) }
    : reply.bytes !== undefined
      ? { status: reply.status, headers: reply.headers ?? {}, body: reply.bytes }
      : {
          status: reply.status,
          headers: Object.assign({}, reply.headers, reply.status === 204 ? undefined : JSON_HEADERS),
          body:
            reply.status === 204
              ? ""
              : (reply.json ??
                (reply.body === undefined
                  ? ""
                  : JSON.stringify(encode === undefined ? reply.body : encode(reply.body))))
        }

/** What the idempotency store keeps is text: a route that answers a write with bytes is a defect. */
const storedOf =
  (route: Route) =>
  (rendered: Rendered): Effect.Effect<Stored> =>
    typeof rendered.body === "string"
      ? Effect.succeed({ ...rendered, body: rendered.body })
      : Effect.dieMessage(`${route.operationId} answers a write with bytes, which a retry could not replay`)

interface Coded {
  readonly code: string
  readonly detail: unknown
}

const isCoded = (error: unknown): error is Coded =>
  typeof error === "object" &&
  error !== null &&
  "code" in error &&
  typeof error.code === "string" &&
  statusOf(error.code) !== undefined

const extraHeaders = (error: Coded): Record<string, string> => {
  if (error instanceof HttpFailure) return { ...error.headers }
  if (error instanceof Errors.RateLimited) {
    return {
      "retry-after": String(error.retryAfterSeconds),
      "x-ratelimit-limit": String(error.limit),
      "x-ratelimit-remaining": "0"
    }
  }
  if (error instanceof Errors.IdempotencyInProgress) return { "retry-after": "1" }
  if (error instanceof Errors.StorageUnavailable) return { "retry-after": String(error.retryAfterSeconds) }
  if (error instanceof Errors.NotMigrated) return { "retry-after": String(error.retryAfterSeconds) }
  return {}
}

const renderFailure = (
  cause: Cause.Cause<unknown>,
  requestId: string,
  outage: Outage.Outage
): Effect.Effect<Stored> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && isCoded(failure.value)) {
    const error = failure.value
    const rendered: Stored = {
      status: statusOf(error.code)!,
      headers: { "content-type": json, ...extraHeaders(error) },
      body: errorBody(error.code, error.detail, requestId)
    }
    return error instanceof Errors.StorageUnavailable
      ? Effect.as(outage.refused(error), rendered)
      : Effect.succeed(rendered)
  }
  return Effect.logError("request failed", { request_id: requestId, cause: Cause.pretty(cause) }).pipe(
    Effect.as({
      status: 500,
      headers: { "content-type": json },
      body: errorBody(
        "internal_error",
        "an unexpected error occurred; quote the request id when reporting it",
        requestId
      )
    })
  )
}

const readBody = (incoming: IncomingMessage, limit: number): Effect.Effect<Buffer, HttpFailure> =>
  Effect.async<Buffer, HttpFailure>((resume) => {
    const tooLarge = () => HttpFailure.of("payload_too_large", `the body exceeds the limit of ${limit} bytes`)
    const gone = () => HttpFailure.of("invalid_json", "the request body could not be read")
    // A client that went away before its body was read: node emits nothing more for it.
    if (incoming.destroyed) return resume(Effect.fail(gone()))
    const declared = Number(incoming.headers["content-length"] ?? "0")
    if (declared > limit) {
      incoming.resume()
      return resume(Effect.fail(tooLarge()))
    }
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    incoming.on("data", (chunk: Buffer) => {
      if (done) return
      size += chunk.length
      if (size > limit) {
        done = true
        incoming.resume()
        return resume(Effect.fail(tooLarge()))
      }
      chunks.push(chunk)
    })
    incoming.on("end", () => {
      if (!done) {
        done = true
        resume(Effect.succeed(Buffer.concat(chunks)))
      }
    })
    const fail = () => {
      if (!done) {
        done = true
        resume(Effect.fail(gone()))
      }
    }
    incoming.on("error", fail)
    incoming.on("close", fail)
  })

/** The body's bytes as they arrive; past `limit` it fails with 413 and the rest is not read. */
const bodyStream = (incoming: IncomingMessage, limit: number): Stream.Stream<Uint8Array, HttpFailure> => {
  const tooLarge = () => HttpFailure.of("payload_too_large", `the body exceeds the limit of ${limit} bytes`)
  if (Number(incoming.headers["content-length"] ?? "0") > limit) return Stream.fail(tooLarge())
  let size = 0
  return Stream.fromAsyncIterable(incoming as AsyncIterable<Buffer>, () =>
    HttpFailure.of("invalid_json", "the request body could not be read")
  ).pipe(
    Stream.mapEffect((chunk) => {
      size += chunk.length
      return size > limit ? Effect.fail(tooLarge()) : Effect.succeed(chunk as Uint8Array)
    })
  )
}

const bearerToken = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match === null ? undefined : match[1]
}

/** `Idempotency-Key`: 1..255 printable ASCII, or the same as a structured-field quoted string. */
const idempotencyKeyOf = (header: string | undefined): Either.Either<string | undefined, HttpFailure> => {
  if (header === undefined) return Either.right(undefined)
  const value = /^"(.*)"$/.exec(header)?.[1] ?? header
  return /^[\x20-\x7e]{1,255}$/.test(value)
    ? Either.right(value)
    : Either.left(
        HttpFailure.of("validation_failed", [
          {
            path: "Idempotency-Key",
            message: "must be 1 to 255 printable ASCII characters",
            code: "invalid_header"
          }
        ])
      )
}

const sameSecret = (given: string, expected: string): boolean => {
  const a = createHash("sha256").update(given).digest()
  const b = createHash("sha256").update(expected).digest()
  return timingSafeEqual(a, b)
}

/** The request as a web `Request`, for an endpoint that speaks the fetch API (the MCP SDK). */
const toWebRequest = (incoming: IncomingMessage, url: URL): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item)
  }
  const method = incoming.method ?? "GET"
  const hasBody = method !== "GET" && method !== "HEAD"
  return new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(incoming) as ReadableStream, duplex: "half" } : {})
  } as RequestInit)
}

/**
 * What a path of the pipeline answers before the request's own headers (its id, the rate budget)
 * are added: a route's response as stored or replayed, an endpoint's web `Response`, the metrics.
 */
interface Served {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Answer["body"]
  readonly replayed: boolean
}

/** A route's input as its declaration reads it: the raw body is kept for the idempotency fingerprint. */
interface Input {
  readonly raw: Buffer | undefined
  readonly query: unknown
  readonly body: unknown
}

/** Who a route admitted: a key's principal and what is left of its budget, or no one (admin, public). */
interface Caller {
  readonly principal: Access.Principal | undefined
  readonly rateRemaining: number | undefined
}

const nobody: Caller = { principal: undefined, rateRemaining: undefined }
const admitNobody = Effect.succeed(nobody)

/** A handler's answer as it was made now, not replayed. */
const answered = (rendered: Rendered): Served => Object.assign({ replayed: false }, rendered)

export const makeApp = <R = never>(table: ReadonlyArray<Mounted>, options: HttpOptions<R>) => {
  const match = makeRouter(table)
  const trusted = options.trustedProxies
  const outage = Outage.make()

  const clientAddress = (incoming: IncomingMessage): string => {
    const socket = incoming.socket.remoteAddress ?? ""
    if (trusted.length === 0 || !Access.IpAllowList.isAllowed(socket, trusted)) return socket
    const hops = (header(incoming.headers, "x-forwarded-for") ?? "")
      .split(",")
      .map((hop) => hop.trim())
      .filter(Boolean)
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!Access.IpAllowList.isAllowed(hops[i]!, trusted)) return hops[i]!
    }
    return socket
  }

  /**
   * Stage: admission, the core's rule (`Access.admit`) from the request's bearer token and client
   * address, for a key-guarded route and an endpoint; an admitted request's budget headers are set
   * here (a refused one gets them from its `RateLimited`).
   */
  const admit = Effect.fnUntraced(function* (
    incoming: IncomingMessage,
    headers: Record<string, string>,
    spendsBudget: boolean,
    seen: Seen
  ) {
    const access = yield* Access.Access
    const admitted = yield* access.admit(
      bearerToken(header(incoming.headers, "authorization")),
      clientAddress(incoming),
      spendsBudget
    )
    headers["x-ratelimit-limit"] = String(access.rateLimit)
    headers["x-ratelimit-remaining"] = String(admitted.remaining)
    seen.principal = admitted.principal
    return admitted
  })

  /** Stage: admission to the admin API, by the configured token. */
  const admitAdmin = (incoming: IncomingMessage): Effect.Effect<void, HttpFailure> => {
    if (Option.isNone(options.adminToken)) {
      return HttpFailure.of("not_found", "the admin API is not enabled (set CRM_ADMIN_TOKEN)")
    }
    const token = bearerToken(header(incoming.headers, "authorization"))
    if (token === undefined) return HttpFailure.of("missing_bearer_token", "send Authorization: Bearer <admin token>")
    if (!sameSecret(token, Redacted.value(options.adminToken.value))) {
      return HttpFailure.of("invalid_api_key", "the admin token is not valid")
    }
    return Effect.void
  }

  /**
   * Stage: the route of the method and path, with its path parameters (ids in lower case).
   *
   * The stages are plain functions or combinators where they need no generator: every request
   * runs them, and a generator is a fiber step and an object more each time.
   */
  const matchRoute = (method: string, url: URL, seen: Seen) => {
    const found = match(method, url.pathname)
    if (found._tag === "NotFound") return HttpFailure.of("not_found", `no route for ${url.pathname}`)
    if (found._tag === "MethodNotAllowed") {
      return HttpFailure.of("method_not_allowed", `allowed: ${found.allow.join(", ")}`, {
        allow: found.allow.join(", ")
      })
    }
    seen.route = found.mounted.template
    const params: Record<string, string> = {}
    let keyed = false
    for (const [name, value] of Object.entries(found.params)) {
      if (!isIdParam(name)) {
        params[name] = value
        keyed = true
      }
      // A malformed id can name no record: the same answer as a missing one.
      else if (!UUID.test(value)) return HttpFailure.of("not_found", "no such record")
      // Ids are stored in lower case: PostgreSQL's uuid type ignores case, the memory store's keys do not.
      else params[name] = value.toLowerCase()
    }
    return { route: found.mounted.route, params, keyed }
  }

  /** Stage: the route's guard (a key with its budget, scope and plan; the admin token; or no one). */
  const admitTo = (
    route: Route,
    incoming: IncomingMessage,
    headers: Record<string, string>,
    seen: Seen
  ): Effect.Effect<Caller, unknown, Services> => {
    const guard = route.guard
    if (guard.kind === "public") return admitNobody
    if (guard.kind === "admin") return Effect.as(admitAdmin(incoming), nobody)
    return Effect.flatMap(admit(incoming, headers, guard.spendsBudget, seen), ({ principal, remaining }) =>
      Effect.as(Access.authorize(principal, guard.scope, isWriting(route)), { principal, rateRemaining: remaining })
    )
  }

  /** Stage: the body read and the query and body validated against the route's schemas. */
  const readInput = Effect.fnUntraced(function* (route: Route, incoming: IncomingMessage, url: URL) {
    // A streamed body is the handler's to read, as it arrives, within its own bound.
    if (route.body?.raw === "stream") {
      const contentType = header(incoming.headers, "content-type")
      if (contentType === undefined || !NDJSON_TYPE.test(contentType)) {
        return yield* HttpFailure.of("unsupported_media_type", "send the body as Content-Type: application/x-ndjson")
      }
      const query =
        route.query === undefined
          ? undefined
          : yield* Validation.parse(route.query, Object.fromEntries(url.searchParams))
      return { raw: undefined, query, body: bodyStream(incoming, MAX_STREAMED_BODY_BYTES) } satisfies Input
    }
    const raw = route.body === undefined ? undefined : yield* readBody(incoming, options.maxBodyBytes)
    const params = Object.fromEntries(url.searchParams)
    // `GET /events` answers its own 400 `invalid_parameter` for any `since` or `event` it cannot use
    // (the contract's status for that endpoint) and reads nothing else from its query.
    if (route.query !== undefined && route.path !== "/events") yield* Validation.refuseUnsafe(params)
    const query = route.query === undefined ? undefined : yield* Validation.parse(route.query, params)
    if (route.body === undefined) return { raw, query, body: undefined } satisfies Input
    const contentType = header(incoming.headers, "content-type")
    if (route.body.raw === "ndjson") {
      if (raw !== undefined && raw.length > 0 && (contentType === undefined || !NDJSON_TYPE.test(contentType))) {
        return yield* HttpFailure.of("unsupported_media_type", "send the body as Content-Type: application/x-ndjson")
      }
      return { raw, query, body: raw === undefined ? "" : raw.toString("utf8") } satisfies Input
    }
    let value: unknown
    if (raw !== undefined && raw.length > 0) {
      if (contentType === undefined || !JSON_TYPE.test(contentType)) {
        return yield* HttpFailure.of("unsupported_media_type", "send the body as Content-Type: application/json")
      }
      const parsed = Validation.parseJson(raw.toString("utf8"))
      if (Either.isLeft(parsed)) {
        return yield* parsed.left instanceof SyntaxError
          ? HttpFailure.of("invalid_json", `the body is not valid JSON: ${parsed.left.message}`)
          : Effect.fail(parsed.left)
      }
      value = parsed.right
    }
    if (value === undefined && route.body.optional) value = {}
    yield* Validation.refuseUnsafe(value)
    const body = route.body.patch
      ? yield* Validation.parsePatch(route.body.schema as never, value)
      : route.body.batch
        ? yield* Either.mapLeft(Validation.parse(route.body.schema, value), Batch.itemRefusal)
        : yield* Validation.parse(route.body.schema, value)
    return { raw, query, body } satisfies Input
  })

  /**
   * Stage: the handler, once per idempotency key for a key's write. Its failure is rendered here,
   * not by the pipeline's renderer, because a retry replays it as stored.
   */
  const execute = (
    route: Route,
    caller: Caller,
    params: Record<string, string>,
    input: Input,
    incoming: IncomingMessage,
    url: URL,
    requestId: string
  ): Effect.Effect<Served, unknown, Services> => {
    const { principal, rateRemaining } = caller
    const run = route.handle({ principal, params, query: input.query, body: input.body, rateRemaining }).pipe(
      Effect.map((reply) => render(reply, route.success.encode)),
      Effect.catchAllCause((cause) => renderFailure(cause, requestId, outage))
    )
    if (!isWriting(route) || principal === undefined) return Effect.map(run, answered)
    return Either.match(idempotencyKeyOf(header(incoming.headers, "idempotency-key")), {
      onLeft: Effect.fail,
      onRight: (idempotencyKey) => {
        if (idempotencyKey === undefined) return Effect.map(run, answered)
        const fingerprint = createHash("sha256")
          .update(`${incoming.method ?? "GET"} ${url.pathname}${url.search}\n`)
          .update(input.raw ?? Buffer.alloc(0))
          .digest("hex")
        return Effect.flatMap(Idempotency.Idempotency, (idempotency) =>
          idempotency.execute(
            { keyId: principal.key.id, idempotencyKey },
            fingerprint,
            Effect.map(Effect.flatMap(run, storedOf(route)), StoredResponse.toRun)
          )
        ).pipe(
          Effect.map((result): Served => Object.assign({ replayed: result.replayed }, StoredResponse.ofOutcome(result)))
        )
      }
    })
  }

  /** A REST route: match, admission, input, the handler (or its replay), then the outage's end. */
  const serveRoute = Effect.fnUntraced(function* (
    incoming: IncomingMessage,
    url: URL,
    requestId: string,
    headers: Record<string, string>,
    seen: Seen
  ) {
    const matched = matchRoute(incoming.method ?? "GET", url, seen)
    if (matched instanceof HttpFailure) return yield* matched
    const { route, params } = matched
    const caller = yield* admitTo(route, incoming, headers, seen)
    // A natural key in the path (`/products/by-sku/{sku}`) reaches storage as any body string does.
    if (matched.keyed) yield* Validation.refuseUnsafe(params)
    const input = yield* readInput(route, incoming, url)
    const served = yield* execute(route, caller, params, input, incoming, url, requestId)
    // A route that needs the store and succeeded has reached it.
    if (outage.active() && served.status < 300 && usesStore(route)) yield* outage.answered
    return served
  })

  /** An endpoint outside the router: admission as REST (one unit of budget), then its own handler. */
  const serveEndpoint = Effect.fnUntraced(function* (
    endpoint: Endpoint<R>,
    incoming: IncomingMessage,
    url: URL,
    headers: Record<string, string>,
    seen: Seen
  ) {
    seen.route = endpoint.path
    const { principal } = yield* admit(incoming, headers, true, seen)
    // Admitted means the store answered (the budget is kept there).
    if (outage.active()) yield* outage.answered
    if (Number(header(incoming.headers, "content-length") ?? "0") > options.maxBodyBytes) {
      return yield* HttpFailure.of("payload_too_large", `the body exceeds the limit of ${options.maxBodyBytes} bytes`)
    }
    const response = yield* endpoint.handle(toWebRequest(incoming, url), principal)
    return { status: response.status, headers: {}, body: response, replayed: false } satisfies Served
  })

  /** The metrics, to the admin token, as the admin API answers it. */
  const serveMetrics = Effect.fnUntraced(function* (metrics: Metrics, incoming: IncomingMessage, seen: Seen) {
    seen.route = METRICS_PATH
    if (incoming.method !== "GET") {
      return yield* HttpFailure.of("method_not_allowed", "allowed: GET", { allow: "GET" })
    }
    yield* admitAdmin(incoming)
    const { contentType, text } = yield* metrics.scrape
    return { status: 200, headers: { "content-type": contentType }, body: text, replayed: false } satisfies Served
  })

  const serve = (
    incoming: IncomingMessage,
    requestId: string,
    headers: Record<string, string>,
    seen: Seen
  ): Effect.Effect<Served, unknown, Services | R> => {
    const target = incoming.url ?? "/"
    if (target.length > MAX_URL_BYTES) {
      return HttpFailure.of("uri_too_long", `the URL exceeds the limit of ${MAX_URL_BYTES} bytes`)
    }
    const url = new URL(target, "http://localhost")
    const endpoint = options.endpoints?.find((candidate) => candidate.path === url.pathname)
    if (endpoint !== undefined) return serveEndpoint(endpoint, incoming, url, headers, seen)
    if (url.pathname === METRICS_PATH && options.metrics !== undefined) {
      return serveMetrics(options.metrics, incoming, seen)
    }
    return serveRoute(incoming, url, requestId, headers, seen)
  }

  /** Every path's failure is rendered here, once, and every answer gets the request's headers. */
  const dispatch = (
    incoming: IncomingMessage,
    requestId: string,
    headers: Record<string, string>,
    seen: Seen
  ): Effect.Effect<Answer, never, Services | R> =>
    serve(incoming, requestId, headers, seen).pipe(
      Effect.catchAllCause((cause) =>
        Effect.map(
          renderFailure(cause, requestId, outage),
          (stored): Served => Object.assign({ replayed: false }, stored)
        )
      ),
      Effect.map(
        (served): Answer => ({
          status: served.status,
          headers: Object.assign({}, served.headers, headers, served.replayed ? REPLAYED_HEADERS : undefined),
          body: served.body
        })
      )
    )

  const { metrics, requestLog } = options
  const unseen = (): Seen => ({ route: undefined, principal: undefined })
  if (metrics === undefined && requestLog === undefined) {
    return (incoming: IncomingMessage): Effect.Effect<Answer, never, Services | R> => {
      const requestId = requestIdOf(header(incoming.headers, "x-request-id"))
      return dispatch(incoming, requestId, { "x-request-id": requestId }, unseen())
    }
  }
  /** Each request answered is one count and one observation of the metrics, and one line of the log. */
  return (incoming: IncomingMessage): Effect.Effect<Answer, never, Services | R> => {
    const started = performance.now()
    const requestId = requestIdOf(header(incoming.headers, "x-request-id"))
    const seen = unseen()
    return Effect.map(dispatch(incoming, requestId, { "x-request-id": requestId }, seen), (answer) => {
      const method = incoming.method ?? "GET"
      const ms = performance.now() - started
      metrics?.observe(method, seen.route, answer.status, ms / 1000)
      requestLog?.({
        request_id: requestId,
        method,
        route: seen.route ?? null,
        status: answer.status,
        duration_ms: Math.round(ms * 1000) / 1000,
        organisation_id: seen.principal?.organisation.id ?? null,
        key_id: seen.principal?.key.id ?? null
      })
      return answer
    })
  }
}
