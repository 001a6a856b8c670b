/**
 * Stage: who is calling. A key, by the core's rule (`Access.admit`: the bearer token, the client's
 * address against the key's allow-list, one unit of its budget where the route spends one); the
 * operator, by the configured admin token; a signed-in person, by the session cookie (`People`),
 * whose writes must come from the site itself; a visitor signing in, whose writes must too; or, on
 * a public route, no one. OAuth tokens join as a further guard here.
 *
 * A write with the session cookie is refused (403 `csrf_refused`) unless it sends the session's
 * CSRF token as `X-CSRF-Token`, which a page of another site can neither read nor compute (the
 * cookie is HttpOnly and the token is derived from it), and, when it sends an `Origin`, the server's
 * own. Browsers send `Origin` with every cross-site write, so a visitor's write (signing in, which
 * has no token yet) is held to the second rule.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { Access, Errors, type Organisation, People, Reads } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type Answer, header } from "../Edge.js"
import { HttpFailure } from "../Reply.js"
import type { Reached } from "./Reached.js"

export const bearerToken = (incoming: IncomingMessage): string | undefined => {
  const value = header(incoming.headers, "authorization")
  if (value === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value)
  return match === null ? undefined : match[1]
}

/**
 * The client's address: the socket's, or, behind a trusted proxy, the nearest `X-Forwarded-For` hop
 * that is not itself a trusted proxy. Anything else a client says of its address is ignored.
 */
export const clientAddressOf =
  (trusted: ReadonlyArray<string>) =>
  (incoming: IncomingMessage): string => {
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

/** A key admitted: the request as reached with its principal and budget. */
export const authenticateKey = (
  reached: Reached,
  clientAddress: string,
  spendsBudget: boolean
): Effect.Effect<
  Reached,
  Errors.MissingBearerToken | Errors.InvalidApiKey | Errors.ExpiredApiKey | Errors.RateLimited | Errors.StorageError,
  Access.Access
> =>
  Effect.flatMap(Access.Access, (access) =>
    Effect.map(access.admit(bearerToken(reached.incoming), clientAddress, spendsBudget), (admitted) =>
      reached.admitted(admitted.principal, { limit: access.rateLimit, remaining: admitted.remaining })
    )
  )

/**
 * A keyed request served. With a store that reads from a standby, a read (GET) is marked as one
 * the standby may answer (`Reads`), and after any other request, failed ones too (a batch fails
 * after units it committed), the key's later reads must see what it wrote (`Access.wrote`). That
 * record is the request's last statement: a failure of it is logged rather than answered, since
 * the writes it follows are committed. Without a standby, the request as it is.
 */
export const servedAsKey = <A, E, R>(
  principal: Access.Principal,
  writing: boolean,
  served: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Access.Access> =>
  Effect.flatMap(Access.Access, (access) =>
    !access.standbyReads
      ? served
      : writing
        ? Effect.onExit(served, () =>
            access
              .wrote(principal)
              .pipe(
                Effect.catchAll((error) =>
                  Effect.logWarning("recording the key's last write for its standby reads", error)
                )
              )
          )
        : Effect.locally(served, Reads.fromStandby, true)
  )

/**
 * The authorization server's side of the MCP endpoint (issue 37): what grant an access token it
 * issued stands for, and where a client learns how to get one.
 */
export interface AccessTokens {
  /** The grant and scopes of a live access token issued for this resource; undefined for any other. */
  readonly verify: (
    token: string
  ) => Effect.Effect<
    { readonly grantId: string; readonly scopes: ReadonlyArray<string> } | undefined,
    Errors.StorageError
  >
  /** The protected resource metadata's URL (RFC 9728), named in every 401 of the endpoint. */
  readonly resourceMetadata: string
}

/**
 * A key, or an access token of a connected app: a bearer that is not an API key is asked of the
 * authorization server, and its grant admitted as its key is (`Access.admitApp`).
 */
export const authenticateBearer = (
  reached: Reached,
  clientAddress: string,
  spendsBudget: boolean,
  tokens: AccessTokens | undefined
): Effect.Effect<
  Reached,
  Errors.MissingBearerToken | Errors.InvalidApiKey | Errors.ExpiredApiKey | Errors.RateLimited | Errors.StorageError,
  Access.Access
> => {
  const token = bearerToken(reached.incoming)
  if (tokens === undefined || token === undefined || token.startsWith(Access.ApiKey.PREFIX)) {
    return authenticateKey(reached, clientAddress, spendsBudget)
  }
  return Effect.flatMap(tokens.verify(token), (verified) =>
    verified === undefined
      ? Effect.fail(
          new Errors.InvalidApiKey({
            detail: "the access token is not valid: unknown, expired, revoked, or issued for another resource"
          })
        )
      : Effect.flatMap(Access.Access, (access) =>
          Effect.map(access.admitApp(verified.grantId, verified.scopes, clientAddress, spendsBudget), (admitted) =>
            reached.admitted(admitted.principal, { limit: access.rateLimit, remaining: admitted.remaining })
          )
        )
  )
}

/**
 * A 401 of the endpoint tells the client where to learn how to authorize (RFC 9728, section 5.1),
 * and, when it sent a token, that the token was refused (RFC 6750).
 */
export const challenged =
  (tokens: AccessTokens | undefined, incoming: IncomingMessage) =>
  (answered: Answer): Answer => {
    if (tokens === undefined || answered.status !== 401) return answered
    const sent = bearerToken(incoming) !== undefined
    const challenge = `Bearer ${sent ? 'error="invalid_token", ' : ""}resource_metadata="${tokens.resourceMetadata}"`
    return {
      status: answered.status,
      headers: Object.assign({}, answered.headers, { "www-authenticate": challenge }),
      body: answered.body
    }
  }

/**
 * What the endpoint answers a connected app whose token lacks the scope a tool needs, as OAuth says
 * (RFC 6750, 3.1), so that its client can ask the person for it: a 403 naming the scopes to ask for.
 * A key's caller gets none: the contract's tool error `missing_scope:<scope>` stands for it.
 */
export const insufficientScope = (
  resourceMetadata: string,
  principal: Access.Principal
): ((scope: Access.Scope) => Response) | undefined =>
  principal.key.grant_id === null
    ? undefined
    : (scope) =>
        Response.json(
          { error: "insufficient_scope", detail: `this tool needs the ${scope} scope` },
          {
            status: 403,
            headers: {
              "www-authenticate": `Bearer error="insufficient_scope", scope="${[...principal.key.scopes, scope].join(" ")}", resource_metadata="${resourceMetadata}"`
            }
          }
        )

// Both sides hashed first, so that the comparison takes the same time whatever the lengths.
export const sameSecret = (given: string, expected: string): boolean =>
  timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest())

/** The operator, by the admin token; with none configured the admin API does not exist. */
export const authenticateAdmin = (
  adminToken: Option.Option<Redacted.Redacted<string>>,
  incoming: IncomingMessage
): Effect.Effect<void, HttpFailure<"not_found" | "missing_bearer_token" | "invalid_api_key">> => {
  if (Option.isNone(adminToken)) {
    return HttpFailure.of("not_found", "the admin API is not enabled (set CRM_ADMIN_TOKEN)")
  }
  const token = bearerToken(incoming)
  if (token === undefined) return HttpFailure.of("missing_bearer_token", "send Authorization: Bearer <admin token>")
  if (!sameSecret(token, Redacted.value(adminToken.value))) {
    return HttpFailure.of("invalid_api_key", "the admin token is not valid")
  }
  return Effect.void
}

/** The cookie that carries a session's token. */
export const SESSION_COOKIE = "crm_session"

/** A session token as `People` hands them out (base64url); anything else in the cookie is no session. */
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/

/**
 * The value of a cookie in a `Cookie` header, or undefined. Strict and total: a malformed pair is
 * skipped, a value is taken only when it is a token (quotes around it allowed, as RFC 6265 does),
 * and nothing is decoded, so no header can make it throw.
 */
export const cookieValue = (cookies: string | undefined, name: string): string | undefined => {
  if (cookies === undefined) return undefined
  for (const pair of cookies.split(";")) {
    const equals = pair.indexOf("=")
    if (equals < 0 || pair.slice(0, equals).trim() !== name) continue
    const raw = pair.slice(equals + 1).trim()
    const value = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw
    if (TOKEN.test(value)) return value
  }
  return undefined
}

/**
 * Where the server is served, as a browser names it in `Origin`: the public URL's origin when one
 * is configured; else the `Host` the request was sent to, over https when the socket or a trusted
 * proxy (`X-Forwarded-Proto`) says so. Undefined when the request names no host.
 */
export const expectedOrigin =
  (publicUrl: string | undefined, trusted: ReadonlyArray<string>) =>
  (incoming: IncomingMessage): string | undefined => {
    if (publicUrl !== undefined) return new URL(publicUrl).origin
    const host = header(incoming.headers, "host")
    if (host === undefined || !/^[A-Za-z0-9.:[\]-]{1,300}$/.test(host)) return undefined
    const proxied =
      trusted.length > 0 && Access.IpAllowList.isAllowed(incoming.socket.remoteAddress ?? "", trusted)
        ? header(incoming.headers, "x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase()
        : undefined
    const encrypted = (incoming.socket as { readonly encrypted?: boolean }).encrypted === true
    return `${encrypted || proxied === "https" ? "https" : "http"}://${host.toLowerCase()}`
  }

/** A write whose `Origin`, when it sends one, is not the server's: 403 `csrf_refused`. */
export const refuseForeignOrigin = (
  incoming: IncomingMessage,
  expected: string | undefined
): Effect.Effect<void, HttpFailure<"csrf_refused">> => {
  const origin = header(incoming.headers, "origin")
  if (origin === undefined || (expected !== undefined && origin.toLowerCase() === expected)) return Effect.void
  return HttpFailure.of("csrf_refused", "this request came from another site (its Origin is not this server's)")
}

/** The User-Agent a session is listed with, cut to what the session list shows. */
export const deviceOf = (incoming: IncomingMessage): string | null =>
  header(incoming.headers, "user-agent")?.slice(0, 200) ?? null

/** A visitor (signing in): any write from another site refused; the handler is told their address and browser. */
export const admitVisitor = (
  reached: Reached,
  client: People.Client,
  writing: boolean,
  expected: string | undefined
): Effect.Effect<Reached, HttpFailure<"csrf_refused">> => {
  const admitted = reached.called(client)
  return writing ? Effect.as(refuseForeignOrigin(reached.incoming, expected), admitted) : Effect.succeed(admitted)
}

/**
 * A signed-in person, by the session cookie: a write refused unless it sends the session's CSRF
 * token and comes from the site; under an organisation, the person there (`People.enter`: one who
 * does not belong to it is told it does not exist).
 */
export const authenticateSession = (
  reached: Reached,
  clientAddress: string,
  writing: boolean,
  expected: string | undefined,
  organisationId: Organisation.OrganisationId | undefined
): Effect.Effect<
  Reached,
  Errors.SessionRequired | Errors.NotFound | Errors.StorageError | HttpFailure<"csrf_refused">,
  People.People
> =>
  Effect.gen(function* () {
    const incoming = reached.incoming
    if (writing) yield* refuseForeignOrigin(incoming, expected)
    const people = yield* People.People
    const principal = yield* people.authenticate(
      cookieValue(header(incoming.headers, "cookie"), SESSION_COOKIE),
      clientAddress
    )
    if (writing && !sameSecret(header(incoming.headers, "x-csrf-token") ?? "", principal.csrfToken)) {
      return yield* HttpFailure.of(
        "csrf_refused",
        "send the session's csrf_token (GET /auth/v1/session) as X-CSRF-Token"
      )
    }
    return reached.called(organisationId === undefined ? principal : yield* people.enter(principal, organisationId))
  })
