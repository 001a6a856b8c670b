/**
 * Stage: who is calling. A key, by the core's rule (`Access.admit`: the bearer token, the client's
 * address against the key's allow-list, one unit of its budget where the route spends one); the
 * operator, by the configured admin token; or, on a public route, no one. Sessions and OAuth tokens
 * join as further guards here.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { Access, type Errors } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { header } from "../Edge.js"
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

// Both sides hashed first, so that the comparison takes the same time whatever the lengths.
const sameSecret = (given: string, expected: string): boolean =>
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
