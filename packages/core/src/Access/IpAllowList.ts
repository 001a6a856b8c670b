/**
 * IP allow-lists for API keys: CIDR ranges for IPv4 and IPv6, matched with bigint
 * arithmetic (an IPv4 address is a 32-bit number, an IPv6 address a 128-bit one).
 *
 * Parsing is deliberately strict. An allow-list is a security control, so an entry
 * that different tools could read differently (`010.0.0.1` is 8.0.0.1 to inet_aton
 * but 10.0.0.1 to a human) is refused instead of being guessed at.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { z } from "zod"

export type IpFamily = 4 | 6

export interface IpAddress {
  readonly family: IpFamily
  readonly value: bigint
}

export interface Cidr {
  readonly family: IpFamily
  /** Host bits already cleared, so matching is one mask and one comparison. */
  readonly network: bigint
  readonly prefix: number
}

const WIDTH: Record<IpFamily, number> = { 4: 32, 6: 128 }

const IPV4_MAPPED_PREFIX = 0xffffn << 32n
const LOW_32_BITS = 0xffffffffn

const OCTET = /^(?:0|[1-9][0-9]{0,2})$/
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/
const PREFIX_LENGTH = /^(?:0|[1-9][0-9]{0,2})$/
const IPV6_CHARS = /^[0-9a-fA-F:.]+$/

const parseIPv4 = (text: string): bigint | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  let value = 0n
  for (const part of parts) {
    if (!OCTET.test(part)) return undefined
    const octet = Number(part)
    if (octet > 255) return undefined
    value = (value << 8n) | BigInt(octet)
  }
  return value
}

/** 16-bit groups of one side of a `::`; `allowIPv4Tail` where the address may end. */
const parseGroups = (text: string, allowIPv4Tail: boolean): Array<bigint> | undefined => {
  if (text === "") return []
  const parts = text.split(":")
  const groups: Array<bigint> = []
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (allowIPv4Tail && i === parts.length - 1 && part.includes(".")) {
      const v4 = parseIPv4(part)
      if (v4 === undefined) return undefined
      groups.push(v4 >> 16n, v4 & 0xffffn)
    } else if (HEX_GROUP.test(part)) {
      groups.push(BigInt(`0x${part}`))
    } else {
      return undefined
    }
  }
  return groups
}

const parseIPv6 = (text: string): bigint | undefined => {
  if (!IPV6_CHARS.test(text)) return undefined
  const gap = text.indexOf("::")
  if (gap !== -1 && text.indexOf("::", gap + 1) !== -1) return undefined
  const head = parseGroups(gap === -1 ? text : text.slice(0, gap), gap === -1)
  const tail = gap === -1 ? [] : parseGroups(text.slice(gap + 2), true)
  if (head === undefined || tail === undefined) return undefined
  const explicit = head.length + tail.length
  // `::` stands for at least one zero group (RFC 4291 §2.2).
  if (gap === -1 ? explicit !== 8 : explicit > 7) return undefined
  const groups = [...head, ...new Array<bigint>(8 - explicit).fill(0n), ...tail]
  return groups.reduce((value, group) => (value << 16n) | group, 0n)
}

const parseBare = (text: string): IpAddress | undefined => {
  if (text.includes(":")) {
    const value = parseIPv6(text)
    return value === undefined ? undefined : { family: 6, value }
  }
  const value = parseIPv4(text)
  return value === undefined ? undefined : { family: 4, value }
}

const maskOf = (family: IpFamily, prefix: number): bigint => {
  const width = BigInt(WIDTH[family])
  return ((1n << BigInt(prefix)) - 1n) << (width - BigInt(prefix))
}

/**
 * `10.0.0.0/8`, `2001:db8::/32`, or a bare address meaning that one host. Host bits
 * set below the prefix (`192.168.1.7/24`) are cleared, as nginx and PostgreSQL's
 * `inet` do: the range is what the prefix says, whichever address was written.
 */
export const parseCidr = (text: string): Either.Either<Cidr, string> => {
  const slash = text.indexOf("/")
  const addressText = slash === -1 ? text : text.slice(0, slash)
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1)
  const address = parseBare(addressText)
  if (address === undefined) {
    return Either.left(
      addressText.includes(":")
        ? `"${addressText}" is not a valid IPv6 address`
        : `"${addressText}" is not a valid IPv4 address (four decimal octets 0-255, no leading zeros)`
    )
  }
  const width = WIDTH[address.family]
  let prefix = width
  if (prefixText !== undefined) {
    prefix = PREFIX_LENGTH.test(prefixText) ? Number(prefixText) : Number.NaN
    if (!(prefix <= width)) {
      return Either.left(
        `prefix length "${prefixText}" must be a whole number from 0 to ${width} for IPv${address.family}`
      )
    }
  }
  return Either.right({
    family: address.family,
    network: address.value & maskOf(address.family, prefix),
    prefix
  })
}

/**
 * A peer address as Node reports it (`socket.remoteAddress`): IPv4, IPv6, IPv4-mapped
 * IPv6 on dual-stack sockets, and link-local IPv6 with a zone (`fe80::1%eth0`). The
 * zone names an interface on this host, not part of the address, so it is dropped.
 */
export const parseAddress = (text: string): Option.Option<IpAddress> => {
  const percent = text.indexOf("%")
  if (percent !== -1) {
    const zone = text.slice(percent + 1)
    if (zone === "" || !text.slice(0, percent).includes(":")) return Option.none()
    const address = parseBare(text.slice(0, percent))
    return address?.family === 6 ? Option.some(address) : Option.none()
  }
  return Option.fromNullable(parseBare(text))
}

const inNetwork = (value: bigint, cidr: Cidr): boolean => (value & maskOf(cidr.family, cidr.prefix)) === cidr.network

/**
 * `1.2.3.4` and `::ffff:1.2.3.4` are the same peer: a dual-stack listener reports IPv4
 * clients in the second form. So each matches a range written in either notation, and
 * an allow-list does not depend on how the server happened to bind.
 */
export const matches = (address: IpAddress, cidr: Cidr): boolean => {
  if (address.family === cidr.family) return inNetwork(address.value, cidr)
  if (address.family === 4) return inNetwork(IPV4_MAPPED_PREFIX | address.value, cidr)
  return (address.value & ~LOW_32_BITS) === IPV4_MAPPED_PREFIX && inNetwork(address.value & LOW_32_BITS, cidr)
}

/**
 * An empty list means "no restriction". Otherwise fail closed: an address that does not
 * parse is refused, and an entry that does not parse (which `CidrString` should have
 * stopped at write time) admits nobody rather than everybody.
 */
export const isAllowed = (address: string, allowList: ReadonlyArray<string>): boolean => {
  if (allowList.length === 0) return true
  const parsed = parseAddress(address)
  if (Option.isNone(parsed)) return false
  return allowList.some((entry) => {
    const cidr = parseCidr(entry)
    return Either.isRight(cidr) && matches(parsed.value, cidr.right)
  })
}

/** One `allowed_ips` entry. */
export const CidrString = z.string().refine((text) => Either.isRight(parseCidr(text)), {
  error: (issue) => {
    const reason = typeof issue.input === "string" ? Either.getLeft(parseCidr(issue.input)) : Option.none()
    return `must be an IP address or CIDR range such as 203.0.113.0/24, 198.51.100.7 or 2001:db8::/32${
      Option.isSome(reason) ? `: ${reason.value}` : ""
    }`
  }
})
