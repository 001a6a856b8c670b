/** Starts the real server (the shipped composition) on a free port over a given store. */

import type { AddressInfo } from "node:net"
import { createServer } from "node:net"
import type { Kernel, People, Webhooks } from "@crm/core"
import { Listener } from "@crm/http"
import type { Storage } from "@crm/server"
import { Log, Server } from "@crm/server"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { checkedFetch, jsonOf } from "./responseCheck.js"

export const ADMIN_TOKEN = "test-admin-token"

export const freePort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

export interface Response {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
}

export interface Client {
  readonly request: (
    method: string,
    path: string,
    options?: { body?: unknown; raw?: string; headers?: Record<string, string> }
  ) => Promise<Response>
  readonly get: (path: string, headers?: Record<string, string>) => Promise<Response>
  readonly post: (path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>
  readonly patch: (path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>
  readonly put: (path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>
  readonly delete: (path: string, headers?: Record<string, string>) => Promise<Response>
}

/**
 * A person in a browser: a cookie jar holding their session cookie (`crm_session`, as the server
 * last set or cleared it) and the session's CSRF token (from the last answer that told it), sent
 * back as a browser and the settings page would: the cookie always, the token on every write.
 */
export interface Person {
  /** `/auth/v1`. */
  readonly auth: Client
  /** `/settings/v1/organisations/{id}` of the organisation. */
  readonly settings: (organisationId: string) => Client
  /** The `Cookie` header the jar sends, if it holds a session. */
  readonly cookie: () => string | undefined
  readonly csrfToken: () => string | undefined
  /** Signs in by email and password (`POST /auth/v1/sign-in`). */
  readonly signIn: (email: string, password: string) => Promise<Response>
  /** Accepts an invitation by its token (`POST /auth/v1/invitations/{token}/accept`). */
  readonly accept: (token: string, name: string, password: string) => Promise<Response>
}

/** An invitation made through the admin API, with the token of its accept link (the `#invitation=` fragment). */
export interface Invited {
  readonly invitation: any
  readonly token: string
}

/** The token a link of the people's flows carries in its fragment (`#invitation=`, `#sign-in=`, `#reset=`). */
export const tokenOf = (url: string, kind: "invitation" | "sign-in" | "reset"): string => {
  const token = new URLSearchParams(new URL(url).hash.slice(1)).get(kind)
  if (token === null) throw new Error(`no ${kind} token in ${url}`)
  return token
}

/** The scrypt cost of the test servers' password hashes: the shipped 2^15 would spend 80 ms of CPU on each. */
export const TEST_PASSWORD_COST = 2 ** 10

export interface TestServer {
  readonly url: string
  /** Where `GET /metrics` answers without a token, when the test asked for a metrics port. */
  readonly metricsUrl: string | undefined
  /** A client with no credentials. */
  readonly anonymous: Client
  readonly admin: Client
  /** A client sending `Authorization: Bearer <key>` on every call. */
  readonly as: (key: string) => Client
  /** A fresh organisation (optionally with settings) and a key with the given scopes. */
  readonly tenant: (options?: {
    scopes?: ReadonlyArray<string>
    settings?: unknown
    name?: string
  }) => Promise<{ organisation: any; key: string; keyId: string; client: Client }>
  /** A new browser: a person with an empty cookie jar. */
  readonly person: () => Person
  /** Invites an address into an organisation through the admin API (the operator's way). */
  readonly invite: (organisationId: string, email: string, role: People.Role) => Promise<Invited>
  /**
   * Runs an effect against the server's own services (a webhook dispatch round, a kernel operation,
   * a person's operation at a time of the test's choosing) and its store's ports.
   */
  readonly run: <A, E>(
    effect: Effect.Effect<A, E, Webhooks.Webhooks | Kernel.Services | People.People | Storage.StoragePorts>,
    options?: { readonly signal?: AbortSignal }
  ) => Promise<A>
  readonly close: () => Promise<void>
}

export interface ServerTestOptions {
  readonly trustedProxies?: ReadonlyArray<string>
  readonly publicUrl?: string
  /** Origins besides the public URL's whose pages may call `/api/mcp`, as CRM_ALLOWED_ORIGINS lists them. */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** Serves assistants' Client ID Metadata Documents in place of the network (`Server.ServerOptions`). */
  readonly clientMetadataFetch?: typeof fetch
  /** The OpenAPI document made beforehand, as the built server passes it (`Server.ServerOptions`). */
  readonly openApiDocument?: string
  readonly webhooks?: Server.ServerOptions["webhooks"]
  readonly mail?: Server.ServerOptions["mail"]
  /** Takes the server's log lines in place of the console (to check what an operator would read). */
  readonly logger?: Logger.Logger<unknown, void>
  /** The server's own log (`Log.layer`, as `crm serve` sets it up), written to the test's output. */
  readonly log?: Log.LogSettings
  /** Starts the server without CRM_ADMIN_TOKEN, so without its admin API. */
  readonly withoutAdmin?: boolean
  /** Requests per minute per key (120 unless given: the fuzz sends more). */
  readonly rateLimit?: number
  /** Serves the metrics on a port of their own as well (0: any free port), as CRM_METRICS_PORT does. */
  readonly metricsPort?: number
}

/**
 * Only errors reach the console unless a test reads the lines: a line per request, or a warning
 * per webhook delivery the tests refuse on purpose, would bury what a failing test prints.
 */
const logging = (options: ServerTestOptions) =>
  options.log !== undefined
    ? Log.layer(options.log)
    : options.logger !== undefined
      ? Logger.replace(Logger.defaultLogger, options.logger)
      : Logger.minimumLogLevel(LogLevel.Error)

/**
 * A client of `base`. Its answers are checked against the OpenAPI document (`responseCheck.ts`)
 * unless `documented` is false: the admin API of a server started without it is not served.
 */
const client = (
  base: string,
  defaults: Record<string, string> | ((method: string) => Record<string, string>),
  documented = true,
  answered?: (response: Response) => void
): Client => {
  const request: Client["request"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = {
      ...(typeof defaults === "function" ? defaults(method) : defaults),
      ...(options.headers ?? {})
    }
    let body: string | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    const response = await (documented ? checkedFetch : fetch)(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body })
    })
    const text = await response.text()
    const answer = { status: response.status, headers: response.headers, text, body: jsonOf(text) }
    answered?.(answer)
    return answer
  }
  return {
    request,
    get: (path, headers) => request("GET", path, headers === undefined ? {} : { headers }),
    post: (path, body, headers) => request("POST", path, { body, ...(headers === undefined ? {} : { headers }) }),
    patch: (path, body, headers) => request("PATCH", path, { body, ...(headers === undefined ? {} : { headers }) }),
    put: (path, body, headers) => request("PUT", path, { body, ...(headers === undefined ? {} : { headers }) }),
    delete: (path, headers) => request("DELETE", path, headers === undefined ? {} : { headers })
  }
}

export const startServer = async (
  storage: Layer.Layer<Storage.StoragePorts, unknown>,
  options: ServerTestOptions = {}
): Promise<TestServer> => {
  // A port chosen before the server is built rather than port 0: the links the server makes (an
  // invitation's accept_url, mailed links) name its port, and it names them before it listens.
  const port = await freePort()
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      Server.layer(
        {
          port,
          host: "127.0.0.1",
          adminToken: options.withoutAdmin === true ? Option.none() : Option.some(Redacted.make(ADMIN_TOKEN)),
          trustedProxies: options.trustedProxies ?? [],
          bootstrap: false,
          rateLimit: options.rateLimit ?? 120,
          ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
          ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
          ...(options.clientMetadataFetch === undefined ? {} : { clientMetadataFetch: options.clientMetadataFetch }),
          ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks }),
          ...(options.mail === undefined ? {} : { mail: options.mail }),
          ...(options.openApiDocument === undefined ? {} : { openApiDocument: options.openApiDocument }),
          ...(options.metricsPort === undefined ? {} : { metricsPort: options.metricsPort }),
          passwordCost: TEST_PASSWORD_COST
        },
        storage
      ).pipe(Layer.provide(logging(options))),
      scope
    )
  )
  const address = Context.get(context, Listener.Address)
  const url = `http://127.0.0.1:${address.port}`
  const admin = client(`${url}/admin/v1`, { authorization: `Bearer ${ADMIN_TOKEN}` }, options.withoutAdmin !== true)
  const as = (key: string) => client(`${url}/api/v1`, { authorization: `Bearer ${key}` })
  const metrics = Context.getOption(context, Server.MetricsAddress)
  const person = (): Person => {
    let token: string | undefined
    let csrf: string | undefined
    // What a browser keeps: the session cookie as the last Set-Cookie left it, and the CSRF token
    // as the last session answer told it.
    const keep = (response: Response) => {
      for (const cookie of response.headers.getSetCookie()) {
        const match = /^crm_session=([^;]*)/.exec(cookie)
        if (match !== null) token = match[1] === "" ? undefined : match[1]
      }
      if (typeof response.body?.csrf_token === "string") csrf = response.body.csrf_token
    }
    const headers = (method: string): Record<string, string> => ({
      ...(token === undefined ? {} : { cookie: `crm_session=${token}` }),
      ...(method === "GET" || csrf === undefined ? {} : { "x-csrf-token": csrf })
    })
    const auth = client(`${url}/auth/v1`, headers, true, keep)
    return {
      auth,
      settings: (organisationId) => client(`${url}/settings/v1/organisations/${organisationId}`, headers, true, keep),
      cookie: () => (token === undefined ? undefined : `crm_session=${token}`),
      csrfToken: () => csrf,
      signIn: (email, password) => auth.post("/sign-in", { email, password }),
      accept: (invitation, name, password) =>
        auth.post(`/invitations/${encodeURIComponent(invitation)}/accept`, { name, password })
    }
  }
  return {
    url,
    metricsUrl: Option.isSome(metrics) ? `http://127.0.0.1:${metrics.value.port}/metrics` : undefined,
    anonymous: client(`${url}/api/v1`, {}),
    admin,
    as,
    tenant: async (tenantOptions = {}) => {
      const org = await admin.post("/organisations", {
        name: tenantOptions.name ?? "Test org",
        ...(tenantOptions.settings === undefined ? {} : { settings: tenantOptions.settings })
      })
      if (org.status !== 201) throw new Error(`organisation not created: ${org.status} ${org.text}`)
      const key = await admin.post(`/organisations/${org.body.id}/keys`, {
        name: "test",
        scopes: tenantOptions.scopes ?? ["read", "write"]
      })
      if (key.status !== 201) throw new Error(`key not created: ${key.status} ${key.text}`)
      return { organisation: org.body, key: key.body.key, keyId: key.body.id, client: as(key.body.key) }
    },
    person,
    invite: async (organisationId, email, role) => {
      const created = await admin.post(`/organisations/${organisationId}/invitations`, { email, role })
      if (created.status !== 201) throw new Error(`invitation not created: ${created.status} ${created.text}`)
      return { invitation: created.body, token: tokenOf(created.body.accept_url, "invitation") }
    },
    run: (effect, runOptions) => Effect.runPromise(Effect.provide(effect, context), runOptions),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
