/**
 * The authorization server: oidc-provider (OpenID-certified, and the library the MCP authorization
 * specification's own examples lean on), configured as the MCP 2025-11-25 profile of OAuth 2.1
 * asks and nothing more: the authorization code flow with PKCE S256 always, public clients
 * registered dynamically (RFC 7591) or known by a Client ID Metadata Document, tokens bound to the
 * MCP endpoint by resource indicators (RFC 8707), rotating refresh tokens, and revocation
 * (RFC 7009). Login and consent are the CRM's own (`Consent`).
 */
import { generateKeyPair, randomBytes, randomUUID } from "node:crypto"
import { promisify } from "node:util"
import type { Access, Errors } from "@crm/core"
import type * as Effect from "effect/Effect"
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from "oidc-provider"
import { adapterFactory } from "./StoreAdapter.js"

/** Lifetimes, in seconds. */
export const TTL = {
  /** An access token: short, as OAuth 2.1 asks; the client refreshes it. */
  accessToken: 60 * 60,
  authorizationCode: 60,
  /** A refresh token, renewed at each use (rotation): a month without use ends the connection. */
  refreshToken: 30 * 24 * 60 * 60,
  /** From the client's authorization request to the person's answer on the consent screen. */
  interaction: 15 * 60,
  session: 24 * 60 * 60,
  /** A grant lives as long as it is used: each refresh renews it. */
  grant: 365 * 24 * 60 * 60
} as const

/** Where the server's endpoints are: under one prefix beside the APIs. */
export const ROUTES = {
  authorization: "/oauth/authorize",
  token: "/oauth/token",
  registration: "/oauth/register",
  revocation: "/oauth/revoke",
  jwks: "/oauth/jwks",
  end_session: "/oauth/session/end",
  userinfo: "/oauth/userinfo",
  introspection: "/oauth/introspect",
  pushed_authorization_request: "/oauth/par",
  device_authorization: "/oauth/device/auth",
  code_verification: "/oauth/device",
  backchannel_authentication: "/oauth/backchannel",
  challenge: "/oauth/challenge"
} as const

/** The signing and cookie keys every process shares: made by the first process, read by the rest. */
export interface ProviderKeys {
  readonly jwks: { readonly keys: ReadonlyArray<Record<string, unknown>> }
  readonly cookieKeys: ReadonlyArray<string>
}

/** Made off the event loop: an RSA key takes a few hundred milliseconds of CPU, which no request should wait behind. */
export const newKeys = async (): Promise<ProviderKeys> => {
  const { privateKey } = await promisify(generateKeyPair)("rsa", { modulusLength: 2048 })
  return {
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: randomUUID(), use: "sig", alg: "RS256" }] },
    cookieKeys: [randomBytes(32).toString("base64url")]
  }
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"])

/** OAuth 2.1: a redirect is https, or http to the client's own machine (a native client's loopback). */
const redirectAllowed = (uri: unknown): boolean => {
  if (typeof uri !== "string" || !URL.canParse(uri)) return false
  const url = new URL(uri)
  return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname))
}

/**
 * What the provider is made of. This module imports no other of the CRM's at run time (the
 * server's bundle builds it as a file of its own, loaded at the first authorization): what it
 * needs of them comes in here.
 */
export interface ProviderOptions {
  readonly issuer: string
  /** The scopes a token may carry: the keys' (`Access.SCOPES`). */
  readonly scopes: ReadonlyArray<string>
  /** Where the provider sends a browser to be asked (`Consent.CONSENT_PATH`), the interaction's uid after it. */
  readonly consentPath: string
  /** The MCP endpoint's URL: the one resource tokens are issued for. */
  readonly resource: string
  readonly store: Access.OAuthStore["Type"]
  readonly run: <A>(effect: Effect.Effect<A, Errors.StorageError>) => Promise<A>
  /** Ends a grant the provider revokes, with its app's key (`StoreAdapter`). */
  readonly endGrant: (grantId: string) => Effect.Effect<void, Errors.StorageError>
  readonly keys: ProviderKeys
  /** Behind a proxy the CRM trusts: its `X-Forwarded-Proto` says whether the client used https. */
  readonly proxied: boolean
  /** How Client ID Metadata Documents are fetched (tests serve their own); the provider's, which refuses private addresses, by default. */
  readonly fetch?: typeof fetch
  /** The error page of a request that cannot be sent back to its client (an unknown client, a bad redirect). */
  readonly renderError: (
    ctx: KoaContextWithOIDC,
    error: { error: string; error_description?: string | undefined }
  ) => void
}

export const makeProvider = (options: ProviderOptions): Provider => {
  const scope = options.scopes.join(" ")
  const configuration: Configuration = {
    adapter: adapterFactory(options.store, options.run, options.endGrant),
    clients: [],
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    cookies: { keys: [...options.keys.cookieKeys] },
    jwks: options.keys.jwks as Configuration["jwks"],
    // OAuth, not OpenID Connect: the scopes are the CRM's, there is no ID token to ask for.
    scopes: [...options.scopes],
    clientAuthMethods: ["none"],
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      registration: { enabled: true },
      // A client revokes only its own tokens (RFC 7009, 2.1); another's is answered 200 and kept,
      // telling a public client nothing about a token it should not hold.
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      clientIdMetadataDocument: { enabled: true, ack: "draft-02" },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== options.resource) {
            throw new errors.InvalidTarget(`this server issues tokens for ${options.resource} only`)
          }
          return { scope, audience: options.resource, accessTokenTTL: TTL.accessToken, accessTokenFormat: "opaque" }
        }
      }
    },
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none"
    },
    extraClientMetadata: {
      properties: ["redirect_uris", "token_endpoint_auth_method"],
      validator: (_ctx, key, value) => {
        if (key === "redirect_uris" && Array.isArray(value) && !value.every(redirectAllowed)) {
          const refused = new errors.InvalidRedirectUri()
          refused.error_description = "redirect_uris must be https, or http on a loopback address (OAuth 2.1)"
          throw refused
        }
        // Only public clients, as the metadata says (`clientAuthMethods`): a client secret would be
        // kept as it was given, and PKCE is the proof of the client that asked.
        if (key === "token_endpoint_auth_method" && value !== undefined && value !== "none") {
          throw new errors.InvalidClientMetadata(
            "token_endpoint_auth_method must be none: this server registers public clients only (PKCE is required of each)"
          )
        }
      }
    },
    responseTypes: ["code"],
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    // Tokens live by the grant, not by the provider's login session, which the CRM does not keep.
    expiresWithSession: () => false,
    // Every authorization asks the person (which organisation, which scopes): the only grant an
    // authorization goes on with is the one its own consent just made, never one remembered.
    loadExistingGrant: (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId
      return grantId === undefined ? undefined : ctx.oidc.provider.Grant.find(grantId)
    },
    ttl: {
      AccessToken: TTL.accessToken,
      AuthorizationCode: TTL.authorizationCode,
      RefreshToken: TTL.refreshToken,
      Interaction: TTL.interaction,
      Session: TTL.session,
      Grant: TTL.grant,
      IdToken: TTL.accessToken
    },
    interactions: { url: (_ctx, interaction) => `${options.consentPath}${interaction.uid}` },
    routes: ROUTES,
    // Browser clients call the token and registration endpoints from their own origin.
    clientBasedCORS: () => true,
    renderError: (ctx, out) => options.renderError(ctx, out),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch })
  }
  const provider = new Provider(options.issuer, configuration)
  provider.proxy = options.proxied
  // A code is good for one attempt (RFC 6749, 10.5): one presented with a wrong verifier, redirect
  // or client is used up, so that whoever guessed at it leaves the rightful client nothing to redeem.
  provider.use(async (ctx, next) => {
    await next()
    if (ctx.path !== ROUTES.token || ctx.status !== 400) return
    const params = ctx.oidc?.params as { grant_type?: unknown; code?: unknown } | undefined
    if (params?.grant_type !== "authorization_code" || typeof params.code !== "string") return
    const code = await provider.AuthorizationCode.find(params.code)
    if (code !== undefined && !(code as { consumed?: unknown }).consumed) await code.consume()
  })
  return provider
}
