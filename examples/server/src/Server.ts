/**
 * The composition root: kernel services over a chosen storage, the HTTP app, and the
 * background jobs. Tests build exactly this layer, so they exercise what ships.
 */

import { Access, BusinessClock, Events, Idempotency, Kernel, People, Webhooks } from "@crm/core"
import {
  Api,
  App,
  Authenticate,
  Edge,
  FiberRoots,
  Listener,
  Metrics,
  Opening,
  Outage,
  type Router,
  ScryptPasswordHasher
} from "@crm/http"
import type { McpServer } from "@crm/mcp"
import { OAuth } from "@crm/oauth"
import { Pages } from "@crm/pages"
import { PdfRenderer } from "@crm/pdf"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as CursorHmac from "./CursorHmac.js"
import * as KeyDigest from "./KeyDigest.js"
import * as Log from "./Log.js"
import * as MailWorker from "./MailWorker.js"
import type { StoragePorts } from "./Storage.js"
import * as WebhookWorker from "./WebhookWorker.js"

export interface ServerOptions {
  readonly port: number
  readonly host: string
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly trustedProxies: ReadonlyArray<string>
  /**
   * On an empty store, create a first organisation and key, and an invitation of its owner, and
   * print the key and the invitation's link (once, to stdout).
   */
  readonly bootstrap: boolean
  /** Whom the first start's invitation is for (CRM_OWNER_EMAIL); `DEFAULT_OWNER_EMAIL` when left out. */
  readonly ownerEmail?: string
  readonly rateLimit: number
  /**
   * Where the CRM is served (CRM_PUBLIC_URL): the links people are mailed point there, https there
   * makes webhook targets https-only and the session cookie `Secure`. Left out: `publicUrlOf`.
   */
  readonly publicUrl?: string
  /** CRM_ALLOWED_ORIGINS: origins besides the public URL's whose pages may call `/api/mcp` (`App.HttpOptions`). */
  readonly allowedOrigins?: ReadonlyArray<string>
  readonly webhooks?: Partial<WebhookWorker.WebhookSettings>
  /** SMTP and polling of the mail outbox worker; without SMTP mail is recorded as delivered. */
  readonly mail?: MailWorker.MailSettings
  /**
   * CRM_METRICS_PORT: `GET /metrics` without the admin token on a port of its own (on `host`). The
   * metrics are kept when this or the admin token is set, and then only.
   */
  readonly metricsPort?: number
  /** The OpenAPI document as JSON text, made at build time (`Api.TableOptions`); made at the first request when left out. */
  readonly openApiDocument?: string
  /** The scrypt cost of the passwords hashed (`ScryptPasswordHasher`): 2^15 unless given; tests give less. */
  readonly passwordCost?: number
  /**
   * How the authorization server fetches an assistant's Client ID Metadata Document: the
   * provider's own, which refuses private addresses, unless given (tests serve their own).
   */
  readonly clientMetadataFetch?: typeof fetch
  /** How long a request that needs the store waits for it at start before its 503 (`Opening`): 10 s unless given. */
  readonly openingWait?: Duration.DurationInput
}

/**
 * Where the CRM is served: CRM_PUBLIC_URL without a trailing slash, else the address it listens on
 * (a host that listens on every interface, as in a container, is reached as localhost).
 */
export const publicUrlOf = (options: Pick<ServerOptions, "publicUrl" | "host" | "port">): string => {
  if (options.publicUrl !== undefined) return options.publicUrl.replace(/\/+$/, "")
  const host = ["0.0.0.0", "::", ""].includes(options.host)
    ? "localhost"
    : options.host.includes(":")
      ? `[${options.host}]`
      : options.host
  return `http://${host}:${options.port}`
}

/**
 * Whom the first start invites as the owner when CRM_OWNER_EMAIL is not set: an address of a
 * domain kept for examples, so that nothing reaches a stranger; the owner signs in with it.
 */
export const DEFAULT_OWNER_EMAIL = "owner@example.com"

const firstRun = (options: ServerOptions) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const created = yield* (yield* Access.Access).bootstrap
      if (created._tag === "None") return
      const { organisation, key } = created.value
      const publicUrl = publicUrlOf(options)
      // The only time this key is ever shown: it is stored as a hash. A warning, because the
      // operator has to act on it (keep the key), and so that it is still shown at CRM_LOG_LEVEL=warn.
      yield* Effect.logWarning(
        `created organisation "${organisation.name}" and an API key with every scope; the key is shown this once: ${key.key}`,
        {
          organisation_id: organisation.id,
          try: `curl -H "Authorization: Bearer ${key.key}" ${publicUrl}/api/v1/me`
        }
      )
      // The organisation's people get in through an owner; the first one is invited here, by the
      // system, as the operator would invite one (`crm org invite`). Its token too is stored only
      // as a hash, so this is the one time the link is shown (and the one mail that holds it).
      const invitation = yield* (yield* People.People)
        .invite(organisation.id, { email: options.ownerEmail ?? DEFAULT_OWNER_EMAIL, role: "owner" }, People.system)
        .pipe(Effect.catchTags({ NotFound: Effect.die, AlreadyMember: Effect.die }))
      yield* Effect.logWarning(
        `invited ${invitation.email} as the owner of "${organisation.name}": open the link before ${invitation.expires_at} to choose a name and password, then sign in at ${publicUrl}/settings as ${invitation.email}; the link is shown this once: ${invitation.accept_url}`,
        { organisation_id: organisation.id, invitation_id: invitation.id }
      )
    })
  )

/** The first sweep waits: nothing it does is due within seconds of a start. */
const FIRST_SWEEP_DELAY = "30 seconds"

/**
 * Housekeeping: events (and their webhook deliveries) older than thirty days, idempotency records
 * past their window, and the people's records past their life (`People.purge`: audit entries older
 * than 400 days; failed sign-ins, links, ended sessions and settled invitations older than 14 days)
 * go; sent quotes past `valid_until` expire and unpaid invoices past due become overdue. The date
 * rules are "daily in the organisation's time zone"; running hourly makes them take effect within an
 * hour of each organisation's midnight, and running again changes nothing. The date jobs go by each
 * organisation's business clock (`BusinessClock`): a test-mode organisation's frozen clock holds
 * them, and moving it runs them in that request.
 */
const housekeeping = Layer.scopedDiscard(
  Effect.gen(function* () {
    const events = yield* Events.Events
    const idempotency = yield* Idempotency.Idempotency
    const access = yield* Access.Access
    const clock = yield* BusinessClock.BusinessClock
    const webhooks = yield* Webhooks.Webhooks
    const people = yield* People.People
    // The process's first Intl date format loads ICU's time zones: 13-14 ms in which the event loop
    // does nothing else. Made here, while the store opens, rather than by the first sweep's calendar
    // (or a request that dates something) with every request in flight waiting on it.
    yield* Effect.sync(() => new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(0))
    const calendar = Effect.flatMap(access.organisations, (organisations) =>
      Effect.forEach(organisations, (organisation) => clock.runDueJobs(organisation))
    )
    const outage = Outage.make(Outage.forWorker("housekeeping"))
    const sweep = Outage.round(
      outage,
      Effect.all([events.purge, webhooks.purge, idempotency.purge, people.purge, access.purgeAuthorizations, calendar])
    ).pipe(
      Effect.flatMap((purged) =>
        purged === undefined
          ? Effect.void
          : Effect.logInfo("housekeeping done", {
              events_purged: purged[0],
              webhook_deliveries_purged: purged[1],
              idempotency_records_purged: purged[2],
              people_records_purged: purged[3],
              authorization_records_purged: purged[4]
            })
      ),
      Effect.catchAll((error) => Effect.logWarning("housekeeping failed; retrying at the next run", error)),
      Effect.catchAllDefect((defect) => Effect.logError("housekeeping crashed; retrying at the next run", defect))
    )
    // The first sweep waits a little: at start it would compete with the first requests for the
    // CPU (and, on PGlite, for the one connection), and nothing it does is due within seconds.
    yield* Effect.forkScoped(Effect.delay(Effect.repeat(sweep, Schedule.spaced("1 hour")), FIRST_SWEEP_DELAY))
  })
)

export const kernel = <E, R>(storage: Layer.Layer<StoragePorts, E, R>, options: Kernel.KernelOptions) =>
  Kernel.layerWith(options).pipe(
    Layer.provideMerge(storage),
    Layer.provide(Layer.merge(CursorHmac.layer, KeyDigest.layer))
  )

/**
 * The assistant interface at `/api/mcp`, behind the REST pipeline's authentication and budget:
 * the request is handed to the MCP SDK as a web Request, with the kernel's runtime for the tools.
 * The SDK and the tools are loaded on the first call, not at start: they are about a fifth of the
 * server's idle memory and of its start-up, for an interface many deployments never call.
 */
const mcpEndpoint = (resourceMetadata: string): App.Endpoint<Kernel.Services> => {
  let loading: Promise<McpServer.McpKernel> | undefined
  const mcp = () => (loading ??= import("@crm/mcp").then(({ McpServer }) => McpServer.make()))
  return {
    path: "/api/mcp",
    handle: (request, principal) =>
      Effect.gen(function* () {
        const runtime = yield* Effect.runtime<Kernel.Services>()
        const server = yield* Effect.promise(mcp)
        const stepUp = Authenticate.insufficientScope(resourceMetadata, principal)
        return yield* Effect.promise(() => server.handle(request, principal, runtime, stepUp))
      })
  }
}

/**
 * Requests run with the kernel's services (and the webhook and people services) in their context
 * and nothing else: the storage ports under them were handed over when the services were built,
 * and every span, scope or transaction of a request copies its context.
 */
const requestServices = Layer.effectContext(
  Effect.map(
    Effect.context<Kernel.Services | Webhooks.Webhooks | People.People>(),
    Context.pick(...Kernel.serviceTags, Webhooks.Webhooks, People.People)
  )
)

/** The request log of `Log.layer` where one is provided (`crm serve`, tests that read it); none otherwise. */
const requestLog = Effect.map(Effect.serviceOption(Log.RequestLog), Option.getOrUndefined)

/**
 * The MCP endpoint's authorization server (OAuth 2.1, `@crm/oauth`), in front of the rest: its
 * discovery documents, endpoints and consent screen, and the access tokens it issues, which the
 * endpoint accepts beside keys.
 */
const authorization = (options: ServerOptions) =>
  OAuth.make({
    publicUrl: publicUrlOf(options),
    proxied: options.trustedProxies.length > 0,
    clientAddress: Authenticate.clientAddressOf(options.trustedProxies),
    ...(options.clientMetadataFetch === undefined ? {} : { fetch: options.clientMetadataFetch })
  })

/** What the routes are: with the OpenAPI document made at build time, when there is one. */
const tableOf = (options: ServerOptions) => (options.openApiDocument === undefined ? Api.table : Api.makeTable(options))

/** The pipeline's options that do not depend on the store's services. */
const pipelineOptions = (options: ServerOptions, log: ((line: App.RequestLine) => void) | undefined) => ({
  adminToken: options.adminToken,
  trustedProxies: options.trustedProxies,
  maxBodyBytes: Edge.MAX_BODY_BYTES,
  // Only the configured one: without it, a write's Origin is checked against the request's
  // Host, so that a browser at localhost and one at 127.0.0.1 are both the server's own.
  ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
  ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
  listenHost: options.host,
  ...(log === undefined ? {} : { requestLog: log })
})

/** The app, handed to the listener (`Opening`) once the services under it are built. */
export const http = (
  options: ServerOptions,
  table: ReadonlyArray<Router.Mounted>,
  opening: Opening.Opening,
  metrics?: Metrics.Metrics
) =>
  Layer.scopedDiscard(
    Effect.flatMap(Effect.all([requestLog, authorization(options)]), ([log, oauth]) =>
      opening.open(
        // `/docs` and `/admin` in front of the APIs; Redoc is found from here, as this app's dependency.
        oauth.around(
          Pages.around(
            Pages.make({ resolveFrom: import.meta.url }),
            App.makeApp(table, {
              ...pipelineOptions(options, log),
              endpoints: [mcpEndpoint(oauth.accessTokens.resourceMetadata)],
              accessTokens: oauth.accessTokens,
              ...(metrics === undefined ? {} : { metrics })
            })
          )
        )
      )
    )
    // The quotes' and invoices' PDFs; their workers end with the server, after its last request.
  ).pipe(Layer.provide(Layer.mergeAll(requestServices, PdfRenderer.layer)))

/** Where the metrics port listens (the port bound, so 0 reads back as the real one). */
export class MetricsAddress extends Context.Tag("@crm/server/MetricsAddress")<
  MetricsAddress,
  { readonly host: string; readonly port: number }
>() {}

const metricsPort = (metrics: Metrics.Metrics, host: string, port: number) =>
  Layer.scoped(
    MetricsAddress,
    Effect.map(
      Layer.build(Listener.layer(Metrics.app(metrics), { port, host, tracing: false })),
      Context.get(Listener.Address)
    )
  ).pipe(Layer.provide(requestServices))

/** The metrics and what serves them: the main port behind the admin token, and a port of their own if set. */
const withMetrics = (options: ServerOptions, table: ReadonlyArray<Router.Mounted>, opening: Opening.Opening) =>
  Option.isNone(options.adminToken) && options.metricsPort === undefined
    ? http(options, table, opening)
    : Layer.unwrapEffect(
        Effect.map(Metrics.make, (metrics) =>
          options.metricsPort === undefined
            ? http(options, table, opening, metrics)
            : Layer.merge(
                http(options, table, opening, metrics),
                metricsPort(metrics, options.host, options.metricsPort)
              )
        )
      )

/** How long a request that needs the store waits for it at start before its 503 (`Opening`). */
const OPENING_WAIT = "10 seconds"

/**
 * The server listens first (`Opening`): liveness and the OpenAPI document are answered at once,
 * readiness is 503 and every other request waits until the store is open (migrations run) and the
 * services over it are built. Storage and services are provided outside the app, so a request
 * never meets a half-built dependency.
 */
export const layer = <E, R>(options: ServerOptions, storage: Layer.Layer<StoragePorts, E, R>) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const table = tableOf(options)
      const opening = yield* Opening.listen(
        { ...pipelineOptions(options, yield* requestLog), table, wait: options.openingWait ?? OPENING_WAIT },
        // No tracer exports the server's spans, so requests open none (see `Listener.ListenOptions`).
        { port: options.port, host: options.host, tracing: false }
      )
      return Layer.mergeAll(
        Layer.succeed(Listener.Address, opening.address),
        withMetrics(options, table, opening),
        housekeeping,
        WebhookWorker.worker(WebhookWorker.settingsOf(options.webhooks)),
        MailWorker.worker(options.mail),
        options.bootstrap ? firstRun(options) : Layer.empty
      ).pipe(
        // Merged into the output so that a test can run a dispatch round itself.
        Layer.provideMerge(WebhookWorker.service(WebhookWorker.settingsOf(options.webhooks), options.publicUrl)),
        // Beside the webhooks, outside the kernel: the people's sign-in and settings, and their passwords'
        // hashing (scrypt on node's thread pool, docs/people.md), with links made under the public URL.
        Layer.provideMerge(
          People.layer({ publicUrl: publicUrlOf(options) }).pipe(
            Layer.provide(
              options.passwordCost === undefined
                ? ScryptPasswordHasher.layer
                : ScryptPasswordHasher.layerWith({ cost: options.passwordCost })
            )
          )
        ),
        // Merged too, so that an embedding test can call the kernel's services on the server's own store.
        Layer.provideMerge(kernel(storage, options))
      )
    })
  ).pipe(
    Layer.provide(Layer.setTracerEnabled(false)),
    // Each request is a root fiber: their set becomes a linked list before anything runs (see
    // `FiberRoots`). The server asks for it here; a process that only builds the listener keeps Effect's.
    Layer.provide(FiberRoots.layer)
  )
