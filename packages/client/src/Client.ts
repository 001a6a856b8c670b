/**
 * The clients: `createClient` for the REST API (`/api/v1`, an API key), `createAdminClient` for
 * the admin API (`/admin/v1`, the operator's token), and `createAuthClient` and
 * `createSettingsClient` for a person's session (`/auth/v1`, `/settings/v1`: the session cookie the
 * browser keeps, and the session's CSRF token on every write). All are openapi-fetch clients typed
 * by the generated `paths`, with the prefix taken off (`crm.GET("/contacts/{id}", ...)`), whose
 * calls answer `{ data, response }` or `{ error, response }` with `error` a `CrmError`: no call throws.
 */

import createFetchClient, { type FetchResponse, type MaybeOptionalInit } from "openapi-fetch"
import { type ClientErrorCode, CrmError } from "./CrmError.js"
import type { paths } from "./generated/openapi.js"
import { type Attempted, type Fetch, type RetryPolicy, retryAfterOf, sending } from "./internal/send.js"
import { randomUuid } from "./internal/uuid.js"

type HttpMethod = "get" | "put" | "post" | "delete" | "patch"

/** The document's paths under a prefix, named by the rest of the path. */
type Under<P, Prefix extends string> = {
  [K in keyof P as K extends `${Prefix}${infer Rest}` ? Rest : never]: P[K]
}

/** The REST API's paths, relative to `/api/v1`. */
export type ApiPaths = Under<paths, "/api/v1">
/** The admin API's paths, relative to `/admin/v1`. */
export type AdminPaths = Under<paths, "/admin/v1">
/** The sign-in and session paths, relative to `/auth/v1`. */
export type AuthPaths = Under<paths, "/auth/v1">
/** An organisation's settings as its people manage them, relative to `/settings/v1`. */
export type SettingsPaths = Under<paths, "/settings/v1">

type PathsWith<Paths, M extends HttpMethod> = {
  [P in keyof Paths]: Paths[P] extends { [K in M]: object } ? P : never
}[keyof Paths]

type RequiredKeysOf<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T]

/** Options of one call, beside openapi-fetch's (`params`, `body`, `headers`, `signal`, ...). */
export interface CallOptions {
  /**
   * The `Idempotency-Key` of a write: by default a new random one per call (kept across its
   * retries); a string to send your own (to repeat a call safely later), `false` to send none.
   */
  readonly idempotencyKey?: string | false
}

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & CallOptions)?] : [Init & CallOptions]

type Fetched<Operation, Init> = FetchResponse<Operation & Record<string | number, unknown>, Init, `${string}/${string}`>

/** The codes an error body of the answer can carry (the operation's documented ones). */
export type ErrorCodeOf<ErrorBody> = ErrorBody extends { error: infer Code extends string } ? Code : never

/** What a call answers: the success body, or a `CrmError` typed by the operation's error codes. */
export type CrmResult<Operation, Init = {}> =
  Fetched<Operation, Init> extends infer R
    ?
        | { data: R extends { data: infer D; error?: never } ? D : never; error?: never; response: Response }
        | {
            data?: never
            error: CrmError<ErrorCodeOf<R extends { error: infer E; data?: never } ? E : never> | ClientErrorCode>
            /** Absent for `network_error`. */
            response: Response | undefined
          }
    : never

type Method<Paths, M extends HttpMethod> = <
  Path extends PathsWith<Paths, M>,
  Init extends MaybeOptionalInit<Paths[Path], M & keyof Paths[Path]>
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<CrmResult<Paths[Path][M & keyof Paths[Path]], Init>>

export interface CrmClient<Paths> {
  readonly GET: Method<Paths, "get">
  readonly POST: Method<Paths, "post">
  readonly PUT: Method<Paths, "put">
  readonly PATCH: Method<Paths, "patch">
  readonly DELETE: Method<Paths, "delete">
}

export type ApiClient = CrmClient<ApiPaths>
export type AdminClient = CrmClient<AdminPaths>
export type AuthClient = CrmClient<AuthPaths>
export type SettingsClient = CrmClient<SettingsPaths>

export interface RetryOptions {
  /** Attempts in all, the first included (default 3). */
  readonly maxAttempts?: number
  /** The longest `Retry-After` waited out, in seconds (default 10); a longer one is answered at once. */
  readonly maxWaitSeconds?: number
}

interface CommonOptions {
  /** The server's root, for example `https://crm.example.com` (the clients add `/api/v1` or `/admin/v1`). */
  readonly baseUrl: string
  /** Replaces `globalThis.fetch` (a proxy agent, a test double). */
  readonly fetch?: Fetch
  /** Retries of 429 and 409 `idempotency_in_progress`, honouring `Retry-After`; `false` for none. */
  readonly retries?: RetryOptions | false
}

export interface ClientOptions extends CommonOptions {
  /** An API key, `mck_...`. */
  readonly apiKey: string
}

export interface AdminClientOptions extends CommonOptions {
  /** The operator's `CRM_ADMIN_TOKEN`. */
  readonly adminToken: string
}

export interface SessionClientOptions extends CommonOptions {
  /**
   * The session's CSRF token (`csrf_token` of `GET /auth/v1/session` or of a sign-in's answer), asked
   * for at each write and sent as `X-CSRF-Token`; undefined before sign-in. The session itself is
   * the `crm_session` cookie, which only the browser holds (it is HttpOnly): these clients are for
   * a page served from the CRM's own origin.
   */
  readonly csrfToken?: () => string | undefined
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** What each request carries beside its own parameters: fixed headers, and a header each write asks for. */
interface Credentials {
  readonly headers: Record<string, string>
  readonly csrfToken?: (() => string | undefined) | undefined
  /** The fetch option: `same-origin` sends the browser's cookies to the page's own origin. */
  readonly credentials?: "same-origin"
}

type Untyped = (url: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>

const errorOf = (response: Response, body: unknown, sentRequestId: string): CrmError => {
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
  const isErrorBody = typeof fields.error === "string"
  return new CrmError({
    status: response.status,
    code: isErrorBody ? (fields.error as string) : "unexpected_response",
    detail: isErrorBody ? fields.detail : body,
    requestId:
      typeof fields.request_id === "string"
        ? fields.request_id
        : (response.headers.get("x-request-id") ?? sentRequestId),
    retryAfter: retryAfterOf(response)
  })
}

const make = <Paths>(
  prefix: string,
  credentials: Credentials,
  options: CommonOptions,
  idempotent: boolean
): CrmClient<Paths> => {
  const base: Fetch = options.fetch ?? ((request) => globalThis.fetch(request))
  const policy: RetryPolicy =
    options.retries === false
      ? { maxAttempts: 1, maxWaitSeconds: 0 }
      : { maxAttempts: options.retries?.maxAttempts ?? 3, maxWaitSeconds: options.retries?.maxWaitSeconds ?? 10 }
  const inner = createFetchClient<{}>({
    baseUrl: `${options.baseUrl.replace(/\/+$/, "")}${prefix}`,
    headers: credentials.headers,
    ...(credentials.credentials === undefined ? {} : { credentials: credentials.credentials })
  })
  const call =
    (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE") =>
    async (url: string, init: CallOptions & object = {}) => {
      const { idempotencyKey, ...rest } = init
      const key =
        !idempotent || !WRITES.has(method) || idempotencyKey === false ? undefined : (idempotencyKey ?? randomUuid())
      const attempted: Attempted = { requestId: "" }
      let answered: Response | undefined
      const fetch: Fetch = async (request) => {
        const csrf = WRITES.has(method) ? credentials.csrfToken?.() : undefined
        if (csrf !== undefined && !request.headers.has("x-csrf-token")) request.headers.set("x-csrf-token", csrf)
        answered = await sending(base, { idempotencyKey: key, policy, attempted })(request)
        return answered
      }
      try {
        const { data, error, response } = await (inner[method] as unknown as Untyped)(url, { ...rest, fetch })
        if (response.ok) return { data, response }
        return { error: errorOf(response, error, attempted.requestId), response }
      } catch (cause) {
        const detail = cause instanceof Error ? cause.message : String(cause)
        const error =
          answered === undefined
            ? new CrmError({ status: 0, code: "network_error", detail, requestId: attempted.requestId }, { cause })
            : new CrmError(
                {
                  status: answered.status,
                  code: "unexpected_response",
                  detail,
                  requestId: answered.headers.get("x-request-id") ?? attempted.requestId
                },
                { cause }
              )
        return { error, response: answered }
      }
    }
  return {
    GET: call("GET"),
    POST: call("POST"),
    PUT: call("PUT"),
    PATCH: call("PATCH"),
    DELETE: call("DELETE")
  } as unknown as CrmClient<Paths>
}

/** A client of the REST API (`/api/v1`): an `Idempotency-Key` on every write unless told otherwise. */
export const createClient = (options: ClientOptions): ApiClient =>
  make("/api/v1", { headers: { authorization: `Bearer ${options.apiKey}` } }, options, true)

/**
 * A client of the admin API (`/admin/v1`). It sends no `Idempotency-Key`: the admin API does not
 * read one (its calls are the operator's, made once, not an integration's retried writes).
 */
export const createAdminClient = (options: AdminClientOptions): AdminClient =>
  make("/admin/v1", { headers: { authorization: `Bearer ${options.adminToken}` } }, options, false)

const session = (options: SessionClientOptions): Credentials => ({
  headers: {},
  csrfToken: options.csrfToken,
  credentials: "same-origin"
})

/** A client of the sign-in and session API (`/auth/v1`), with the browser's session cookie. */
export const createAuthClient = (options: SessionClientOptions): AuthClient =>
  make("/auth/v1", session(options), options, false)

/** A client of an organisation's settings API (`/settings/v1`), with the browser's session cookie. */
export const createSettingsClient = (options: SessionClientOptions): SettingsClient =>
  make("/settings/v1", session(options), options, false)
