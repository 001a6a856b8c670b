/**
 * Where a webhook may be sent. A target is an http(s) URL without credentials, https when the
 * CRM itself is served over https, and every address it resolves to must be public: otherwise a
 * subscriber could make the server call into its own network (SSRF). Pure: the addresses come
 * from whoever resolved the name (the service at subscription, the sender's `lookup` at delivery).
 *
 * Numeric host tricks (`2130706433`, `0x7f.1`, `017700000001`, `127.1`) need no code here: the
 * WHATWG URL parser rewrites every IPv4 form to dotted decimal before the host is looked at.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { type Cidr, type IpAddress, matches, parseAddress, parseCidr } from "../Access/IpAllowList.js"

/** The rule a refused target broke: `detail.rule` of 422 `invalid_target_url`. */
export type Rule =
  | "invalid_url"
  | "scheme"
  | "credentials"
  | "https_required"
  | "private"
  | "loopback"
  | "link_local"
  | "shared_address_space"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved"

export interface Refusal {
  readonly rule: Rule
  readonly message: string
}

export interface Target {
  readonly url: URL
  /** The host without IPv6 brackets. */
  readonly hostname: string
  /** Set when the host is an address literal: no name to resolve. */
  readonly address: Option.Option<IpAddress>
}

const cidr = (text: string): Cidr => Either.getOrThrow(parseCidr(text))

/**
 * Checked in order: the first match names the rule, so narrow ranges precede the wide ones holding
 * them. The documentation ranges (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32)
 * are not refused: nothing inside an organisation's network answers there, so they are no SSRF risk.
 */
const IPV4_RANGES: ReadonlyArray<readonly [Cidr, Rule]> = [
  [cidr("169.254.169.254/32"), "metadata"],
  [cidr("255.255.255.255/32"), "broadcast"],
  [cidr("0.0.0.0/8"), "unspecified"],
  [cidr("10.0.0.0/8"), "private"],
  [cidr("100.64.0.0/10"), "shared_address_space"],
  [cidr("127.0.0.0/8"), "loopback"],
  [cidr("169.254.0.0/16"), "link_local"],
  [cidr("172.16.0.0/12"), "private"],
  [cidr("192.0.0.0/24"), "reserved"],
  [cidr("192.88.99.0/24"), "reserved"],
  [cidr("192.168.0.0/16"), "private"],
  [cidr("198.18.0.0/15"), "reserved"],
  [cidr("224.0.0.0/4"), "multicast"],
  [cidr("240.0.0.0/4"), "reserved"]
]

const IPV6_RANGES: ReadonlyArray<readonly [Cidr, Rule]> = [
  [cidr("fd00:ec2::254/128"), "metadata"],
  [cidr("::/128"), "unspecified"],
  [cidr("::1/128"), "loopback"],
  [cidr("64:ff9b:1::/48"), "reserved"],
  [cidr("100::/64"), "reserved"],
  [cidr("2001::/23"), "reserved"],
  [cidr("fc00::/7"), "private"],
  [cidr("fe80::/10"), "link_local"],
  [cidr("fec0::/10"), "reserved"],
  [cidr("ff00::/8"), "multicast"]
]

const GLOBAL_UNICAST = cidr("2000::/3")

/** IPv6 forms that carry an IPv4 address the packet ends up at, with where its 32 bits sit. */
const EMBEDDING: ReadonlyArray<readonly [Cidr, bigint, string]> = [
  [cidr("::ffff:0:0/96"), 0n, "IPv4-mapped"],
  [cidr("64:ff9b::/96"), 0n, "NAT64"],
  [cidr("2002::/16"), 80n, "6to4"]
]

const DESCRIPTIONS: Partial<Record<Rule, string>> = {
  private: "a private address",
  loopback: "a loopback address",
  link_local: "a link-local address",
  shared_address_space: "a carrier-grade NAT address (100.64.0.0/10)",
  metadata: "a cloud metadata address",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  reserved: "a reserved or non-global address"
}

const firstRange = (address: IpAddress, ranges: ReadonlyArray<readonly [Cidr, Rule]>): Rule | undefined =>
  ranges.find(([range]) => matches(address, range))?.[1]

const classify = (address: IpAddress): { readonly rule: Rule; readonly via?: string } | undefined => {
  if (address.family === 4) {
    const rule = firstRange(address, IPV4_RANGES)
    return rule === undefined ? undefined : { rule }
  }
  for (const [range, shift, via] of EMBEDDING) {
    if (matches(address, range)) {
      const inner = classify({ family: 4, value: (address.value >> shift) & 0xffffffffn })
      return inner === undefined ? undefined : { rule: inner.rule, via }
    }
  }
  const rule = firstRange(address, IPV6_RANGES)
  if (rule !== undefined) return { rule }
  return matches(address, GLOBAL_UNICAST) ? undefined : { rule: "reserved" }
}

/** Why an address (as text, the way DNS or a socket reports it) is not public; none when it is. */
export const checkAddress = (text: string): Option.Option<Refusal> => {
  const parsed = parseAddress(text)
  if (Option.isNone(parsed)) return Option.some({ rule: "invalid_url", message: `"${text}" is not an IP address` })
  const found = classify(parsed.value)
  if (found === undefined) return Option.none()
  const via = found.via === undefined ? "" : ` (inside a ${found.via} IPv6 address)`
  return Option.some({
    rule: found.rule,
    message: `the target resolves to ${text}, ${DESCRIPTIONS[found.rule] ?? found.rule}${via}`
  })
}

const refuse = (rule: Rule, message: string) => Either.left<Refusal>({ rule, message })

/**
 * The rules that need no DNS: the URL itself. With `httpsRequired`, plain http is refused. An
 * address literal host is checked here too (unless `allowPrivate`), since nothing resolves it.
 */
export const checkUrl = (
  text: string,
  options: { readonly httpsRequired: boolean; readonly allowPrivate: boolean }
): Either.Either<Target, Refusal> => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return refuse("invalid_url", "target_url is not an absolute URL")
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return refuse("scheme", "target_url must be an http or https URL")
  if (url.username !== "" || url.password !== "")
    return refuse("credentials", "target_url must not carry a user name or password")
  if (options.httpsRequired && url.protocol !== "https:")
    return refuse("https_required", "target_url must be https because this CRM is served over https")
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  // RFC 6761: these names are loopback whatever a resolver says, so they are refused before any lookup.
  if (!options.allowPrivate && /(^|\.)localhost\.?$/i.test(hostname))
    return refuse("loopback", "the target is a localhost name, which is a loopback address")
  const address = parseAddress(hostname)
  if (Option.isSome(address) && !options.allowPrivate) {
    const refused = checkAddress(hostname)
    if (Option.isSome(refused)) return Either.left(refused.value)
  }
  return Either.right({ url, hostname, address })
}

/**
 * Every address a name resolves to must be public: a connection may go to any of them. A name that
 * resolves to nothing now is accepted: DNS may be down or the name not yet published, and nothing
 * is sent without the check at delivery, on the address actually connected to.
 */
export const checkResolved = (addresses: ReadonlyArray<string>): Option.Option<Refusal> => {
  for (const address of addresses) {
    const refused = checkAddress(address)
    if (Option.isSome(refused)) return refused
  }
  return Option.none()
}
