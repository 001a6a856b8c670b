/**
 * The MCP endpoint as an OAuth 2.1 resource server with its authorization server in process
 * (issue 37). `make` gives what the HTTP edge takes: `around`, which serves the discovery
 * documents, the authorization server's endpoints and the consent screen in front of the APIs, and
 * `accessTokens`, which tells the endpoint what grant an access token stands for.
 *
 * A connected app is a key of its person's (`Access.connectApp`): what its tokens do is limited,
 * budgeted and recorded as a key's, and revoking it in the settings revokes the grant with it.
 */
import type { IncomingMessage } from "node:http"
import { Access, Errors as CoreErrors, type Errors, People } from "@crm/core"
import type { App, Edge } from "@crm/http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type Provider from "oidc-provider"
import { CONSENT_PATH, consent, errorPage } from "./Consent.js"
import type { ProviderKeys } from "./Provider.js"

export interface OAuthOptions {
  /** Where the CRM is served (CRM_PUBLIC_URL, or the address it listens at): the issuer, and the base of the resource. */
  readonly publicUrl: string
  /** Behind a proxy the CRM trusts, whose `X-Forwarded-Proto` is believed. */
  readonly proxied: boolean
  /** How Client ID Metadata Documents are fetched; tests serve their own. */
  readonly fetch?: typeof fetch
  /** Whose addresses are believed in `X-Forwarded-For` (the sign-in throttle and the audit trail use the client's). */
  readonly clientAddress: (incoming: IncomingMessage) => string
}

export const MCP_PATH = "/api/mcp"
const RESOURCE_METADATA = "/.well-known/oauth-protected-resource"
const AUTHORIZATION_SERVER_METADATA = "/.well-known/oauth-authorization-server"
const OPENID_CONFIGURATION = "/.well-known/openid-configuration"

export interface OAuth {
  readonly around: <R>(
    app: (incoming: IncomingMessage) => Effect.Effect<Edge.Answer, never, R>
  ) => (incoming: IncomingMessage) => Effect.Effect<Edge.Answer, never, R | People.People | Access.Access>
  readonly accessTokens: App.AccessTokens
  /** The provider, made at its first use. */
  readonly provider: Effect.Effect<Provider, Errors.StorageError>
}

const json = (body: unknown): Edge.Answer => ({
  status: 200,
  headers: {
    "content-type": "application/json",
    "cache-control": "public, max-age=3600",
    "access-control-allow-origin": "*"
  },
  body: JSON.stringify(body)
})

/**
 * An authorization request has about ten parameters; the provider reads each of thousands (as an
 * 8 KB query holds) for tens of milliseconds of CPU, while the other requests wait.
 */
const MAX_PARAMETERS = 64
const tooManyParameters = (target: string): boolean => {
  let count = 0
  for (let at = target.indexOf("?"); at !== -1; at = target.indexOf("&", at + 1)) {
    if (++count > MAX_PARAMETERS) return true
  }
  return false
}
const TOO_MANY: Edge.Answer = {
  status: 400,
  headers: { "content-type": "application/json", "cache-control": "no-store" },
  body: JSON.stringify({ error: "invalid_request", error_description: `more than ${MAX_PARAMETERS} query parameters` })
}

const pathOf = (target: string) => {
  const query = target.indexOf("?")
  return query === -1 ? target : target.slice(0, query)
}

/**
 * Made at once and cheap: the authorization server (oidc-provider and its keys) is loaded and made
 * at its first use, not at start, as the MCP endpoint is (a server most deployments start often and
 * connect an assistant to rarely should not pay for it at every start).
 */
export const make = (options: OAuthOptions) =>
  Effect.gen(function* () {
    const store = yield* Access.OAuthStore
    const access = yield* Access.Access
    const runtime = yield* Effect.runtime<never>()
    const run = <A>(effect: Effect.Effect<A, Errors.StorageError>) => Runtime.runPromise(runtime)(effect)
    const issuer = new URL(options.publicUrl).origin
    const resource = `${issuer}${MCP_PATH}`
    const resourceMetadataUrl = `${issuer}${RESOURCE_METADATA}${MCP_PATH}`

    const load = Effect.gen(function* () {
      const { makeProvider, newKeys } = yield* Effect.promise(() => import("./Provider.js"))
      // The first process to need them makes the keys; every other reads those.
      const stored = yield* store.find("Keys", "provider", new Date().toISOString())
      const keys = (Option.isSome(stored)
        ? stored.value.payload
        : yield* store.claim(
            "Keys",
            "provider",
            (yield* Effect.promise(newKeys)) as unknown as Record<string, unknown>
          )) as unknown as ProviderKeys
      const made = makeProvider({
        issuer,
        scopes: Access.SCOPES,
        consentPath: CONSENT_PATH,
        resource,
        store,
        run,
        // Revoking the app's key revokes its grant's records in the same unit of work.
        endGrant: (grantId) => access.revokeApp(grantId, People.system),
        keys,
        proxied: options.proxied,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        renderError: (ctx, out) => {
          ctx.type = "html"
          ctx.body = errorPage(out.error, out.error_description)
        }
      })
      // A failure of the server's own (the store), not a client's error: logged with the path
      // alone, as a request's query or body may hold a code or a token.
      made.on("server_error", (ctx: { readonly path: string }, error: Error) => {
        void run(Effect.logError("the authorization server failed", { path: ctx.path, error: error.message }))
      })
      return { provider: made, callback: made.callback() }
    })
    // Made once, by the first request that needs it, and kept; a failure (the store did not answer)
    // is not kept, so the next request tries again.
    let loaded: Effect.Effect.Success<typeof load> | undefined
    const once = yield* Effect.makeSemaphore(1)
    const loadedOnce = Effect.suspend(() =>
      loaded !== undefined
        ? Effect.succeed(loaded)
        : once.withPermits(1)(
            Effect.suspend(() =>
              loaded !== undefined
                ? Effect.succeed(loaded)
                : Effect.tap(load, (made) => {
                    loaded = made
                  })
            )
          )
    )
    const provider = Effect.map(loadedOnce, (made) => made.provider)
    const issuerHost = new URL(issuer).host
    const handOver = (incoming: IncomingMessage) => {
      // The provider makes its endpoints' URLs from the request's host: named as the issuer, so
      // that the metadata, the redirects and the issuer agree whatever name the client used.
      incoming.headers.host = issuerHost
      delete incoming.headers["x-forwarded-host"]
      return Effect.map(
        loadedOnce,
        ({ callback }): Edge.Answer => ({
          status: 200,
          headers: {},
          body: (response) => {
            callback(incoming, response)
          }
        })
      )
    }
    const resourceMetadata = json({
      resource,
      authorization_servers: [issuer],
      scopes_supported: [...Access.SCOPES],
      bearer_methods_supported: ["header"],
      resource_name: "CRM (MCP)",
      resource_documentation: `${issuer}/docs`
    })

    const accessTokens: App.AccessTokens = {
      resourceMetadata: resourceMetadataUrl,
      verify: (token) =>
        Effect.flatMap(provider, (made) =>
          Effect.tryPromise({
            try: () => made.AccessToken.find(token),
            catch: (cause) => new CoreErrors.StorageError({ message: "the access token could not be read", cause })
          })
        ).pipe(
          Effect.map((found) => {
            if (found === undefined || found.isExpired || found.grantId === undefined) return undefined
            const audience = (found as unknown as { aud?: string | ReadonlyArray<string> }).aud
            const audiences = audience === undefined ? [] : typeof audience === "string" ? [audience] : audience
            if (!audiences.includes(resource)) return undefined
            return { grantId: found.grantId, scopes: (found.scope ?? "").split(" ").filter(Boolean) }
          })
        )
    }

    // A store that cannot answer is the edge's 503, as for any other request.
    const unavailable = Effect.catchAll(() =>
      Effect.succeed<Edge.Answer>({
        status: 503,
        headers: { "content-type": "application/json", "retry-after": "1" },
        body: JSON.stringify({ error: "temporarily_unavailable", error_description: "the store did not answer" })
      })
    )

    const around: OAuth["around"] = (app) => (incoming) => {
      const path = pathOf(incoming.url ?? "/")
      if (path === RESOURCE_METADATA || path === `${RESOURCE_METADATA}${MCP_PATH}`) {
        return Effect.succeed(resourceMetadata)
      }
      if (path === AUTHORIZATION_SERVER_METADATA) {
        // RFC 8414's place for it; the provider serves the same document as OpenID discovery.
        incoming.url = OPENID_CONFIGURATION
        return unavailable(handOver(incoming))
      }
      if (path.startsWith(CONSENT_PATH)) {
        return unavailable(
          Effect.flatMap(provider, (made) =>
            consent({ provider: made, resource, clientAddress: options.clientAddress }, incoming)
          )
        )
      }
      if (path.startsWith("/oauth/") || path === OPENID_CONFIGURATION) {
        return tooManyParameters(incoming.url ?? "/") ? Effect.succeed(TOO_MANY) : unavailable(handOver(incoming))
      }
      return app(incoming)
    }
    return { around, accessTokens, provider } satisfies OAuth
  })
