/**
 * Stage, for the endpoints outside the router (the MCP endpoint), before anyone is admitted: a
 * request that a page of another site could have made a browser send is refused, 403
 * `origin_refused`, as the MCP Streamable HTTP transport requires of a server (DNS rebinding). It
 * reads the request's headers only, so a probe without a key is refused as well, and at no cost.
 *
 * - `Origin`, when sent, must be the server's own (`expectedOrigin`: the public URL's, else the
 *   request's `Host`) or one configured (`CRM_ALLOWED_ORIGINS`). Browsers send it with every
 *   cross-site request; clients that are not browsers send none and pass.
 * - `Host`: to a page whose name an attacker has made resolve to the server's address, the server
 *   is its own origin, so its `Origin` passes; what gives it away is its `Host`, the attacker's
 *   name. So `Host` must name the server as it is known: a loopback name (only a client on this
 *   machine sends one), the address it listens on, the public URL's host or an allowed origin's.
 *
 * REST is left out: it takes only keys, which a browser never sends by itself; the session routes
 * check `Origin` on their own (`authenticate.ts`).
 */
import type { IncomingMessage } from "node:http"
import { header } from "../Edge.js"
import { HttpFailure } from "../Reply.js"
import { expectedOrigin } from "./authenticate.js"

export interface SiteOptions {
  readonly publicUrl?: string | undefined
  /** Origins besides the server's own whose pages may call it (CRM_ALLOWED_ORIGINS). */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /** The address the server listens on (HOST); left out, as if every interface. */
  readonly listenHost?: string | undefined
  readonly trustedProxies: ReadonlyArray<string>
}

const EVERY_INTERFACE = new Set(["0.0.0.0", "::", ""])

/** As a URL's `hostname` writes them: lower case, IPv6 in brackets. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"]

const asHostname = (address: string): string =>
  address.includes(":") && !address.startsWith("[") ? `[${address.toLowerCase()}]` : address.toLowerCase()

/** The name a `Host` header gives, without its port; "" for a value that is no host. */
const hostnameOf = (host: string): string =>
  /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*)(?::\d*)?$/.exec(host)?.[1]?.toLowerCase() ?? ""

export const makeSiteRefusal = (options: SiteOptions) => {
  const expected = expectedOrigin(options.publicUrl, options.trustedProxies)
  const allowed = (options.allowedOrigins ?? []).map((origin) => new URL(origin))
  const origins = new Set(allowed.map((url) => url.origin))
  const everyInterface = options.listenHost === undefined || EVERY_INTERFACE.has(options.listenHost)
  // On every interface with no public URL, any name that resolves to the machine reaches the
  // server, and none of them is more its own than another: `Host` cannot tell an attacker's name,
  // so it is not checked (CRM_PUBLIC_URL names the server and turns the check on).
  const hostnames =
    everyInterface && options.publicUrl === undefined
      ? undefined
      : new Set([
          ...LOOPBACK_NAMES,
          ...(everyInterface ? [] : [asHostname(options.listenHost!)]),
          ...(options.publicUrl === undefined ? [] : [new URL(options.publicUrl).hostname]),
          ...allowed.map((url) => url.hostname)
        ])
  return (incoming: IncomingMessage): HttpFailure<"origin_refused"> | undefined => {
    const origin = header(incoming.headers, "origin")?.toLowerCase()
    if (origin !== undefined && !origins.has(origin) && origin !== expected(incoming)) {
      return HttpFailure.of("origin_refused", "this request came from another site (its Origin is not this server's)")
    }
    // No `Host` is no browser's (HTTP/1.0): nothing to rebind.
    const host = header(incoming.headers, "host")
    if (hostnames !== undefined && host !== undefined && !hostnames.has(hostnameOf(host))) {
      return HttpFailure.of("origin_refused", "this request was sent to a name that is not this server's (its Host)")
    }
    return undefined
  }
}
