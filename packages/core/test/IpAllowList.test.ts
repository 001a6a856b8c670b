import { BlockList, isIP } from "node:net"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Cidr, IpAddress } from "../src/Access/IpAllowList.js"
import { CidrString, isAllowed, matches, parseAddress, parseCidr } from "../src/Access/IpAllowList.js"

// Formatting lives in the test only: the module never needs to print addresses, and
// writing addresses in several notations is what exercises the parser.

const formatIPv4 = (value: bigint): string =>
  [24n, 16n, 8n, 0n].map((shift) => ((value >> shift) & 0xffn).toString()).join(".")

const groupsOf = (value: bigint): Array<bigint> =>
  Array.from({ length: 8 }, (_, i) => (value >> BigInt(112 - 16 * i)) & 0xffffn)

type V6Style = "full" | "padded" | "compressed" | "upper" | "mappedTail"

const formatIPv6 = (value: bigint, style: V6Style = "compressed"): string => {
  const groups = groupsOf(value)
  if (style === "full") return groups.map((g) => g.toString(16)).join(":")
  if (style === "padded") return groups.map((g) => g.toString(16).padStart(4, "0")).join(":")
  if (style === "mappedTail") {
    return `${groups
      .slice(0, 6)
      .map((g) => g.toString(16))
      .join(":")}:${formatIPv4(value & 0xffffffffn)}`
  }
  // Longest run of zero groups, including runs of one, which RFC 4291 allows.
  let [bestStart, bestLength] = [-1, 0]
  for (let i = 0; i < 8; ) {
    let j = i
    while (j < 8 && groups[j] === 0n) j++
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i]
    i = j === i ? i + 1 : j
  }
  const hex = (gs: Array<bigint>) => gs.map((g) => g.toString(16)).join(":")
  const text =
    bestLength === 0 ? hex(groups) : `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`
  return style === "upper" ? text.toUpperCase() : text
}

const v4Value = fc.bigInt({ min: 0n, max: (1n << 32n) - 1n })
// Biased towards zero runs so that `::` compression actually happens.
const v6Value = fc
  .array(fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 0xffffn })), { minLength: 8, maxLength: 8 })
  .map((groups) => groups.reduce((value, group) => (value << 16n) | group, 0n))
const v6Style = fc.constantFrom<V6Style>("full", "padded", "compressed", "upper", "mappedTail")

const mask = (width: number, prefix: number) => ((1n << BigInt(prefix)) - 1n) << BigInt(width - prefix)

const cidrOf = (text: string): Cidr => Either.getOrThrow(parseCidr(text))
const addressOf = (text: string): IpAddress => Option.getOrThrow(parseAddress(text))

describe("parseCidr: explicit cases", () => {
  it.each([
    ["10.0.0.0/8", 4, 0x0a000000n, 8],
    ["192.168.1.7", 4, 0xc0a80107n, 32],
    ["192.168.1.7/24", 4, 0xc0a80100n, 24],
    ["0.0.0.0/0", 4, 0n, 0],
    ["255.255.255.255/32", 4, 0xffffffffn, 32],
    ["0.0.0.0", 4, 0n, 32],
    ["2001:db8::/32", 6, 0x20010db8n << 96n, 32],
    ["2001:DB8::/32", 6, 0x20010db8n << 96n, 32],
    ["::1", 6, 1n, 128],
    ["::", 6, 0n, 128],
    ["::/0", 6, 0n, 0],
    ["1::", 6, 1n << 112n, 128],
    ["1:2:3:4:5:6:7::", 6, 0x0001000200030004000500060007_0000n, 128],
    ["::2:3:4:5:6:7:8", 6, 0x0000000200030004000500060007_0008n, 128],
    ["1:0:0:0:0:0:0:1/128", 6, (1n << 112n) | 1n, 128],
    ["2001:0db8:0000:0000:0000:ff00:0042:8329", 6, 0x20010db8000000000000ff0000428329n, 128],
    ["2001:db8::ff00:42:8329", 6, 0x20010db8000000000000ff0000428329n, 128],
    ["::ffff:1.2.3.4", 6, 0xffff01020304n, 128],
    ["::ffff:10.0.0.0/104", 6, 0xffff0a000000n, 104],
    ["0:0:0:0:0:ffff:1.2.3.4", 6, 0xffff01020304n, 128],
    ["64:ff9b::192.0.2.33/96", 6, 0x0064ff9b_0000_0000_0000_0000n << 32n, 96],
    ["fe80::/10", 6, 0xfe80n << 112n, 10]
  ] as const)("accepts %s", (text, family, network, prefix) => {
    expect(parseCidr(text)).toEqual(Either.right({ family, network, prefix }))
  })

  it.each([
    "",
    " ",
    " 10.0.0.0/8",
    "10.0.0.0/8 ",
    "garbage",
    "10.0.0",
    "10.0.0.0.0",
    "10.0.0.256",
    "256.0.0.0/8",
    "1.2.3.-4",
    "010.0.0.1",
    "10.0.0.01",
    "00.0.0.0",
    "0x0a.0.0.0",
    "10..0.0",
    "10.0.0.0/",
    "10.0.0.0/33",
    "10.0.0.0/-1",
    "10.0.0.0/08",
    "10.0.0.0/8/8",
    "10.0.0.0/8.0",
    "10.0.0.0/255.0.0.0",
    "167772160",
    "2001:db8::/129",
    "::/",
    ":::",
    ":",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:8::",
    "::1:2:3:4:5:6:7:8",
    "1::2::3",
    ":1::",
    "1::2:",
    "12345::",
    "g::1",
    "::ffff:1.2.3",
    "::ffff:1.2.3.256",
    "::ffff:01.2.3.4",
    "1.2.3.4::",
    "::1.2.3.4:5",
    "1:2:3:4:5:6:7:1.2.3.4",
    "fe80::1%eth0",
    "fe80::1%eth0/64",
    "[::1]",
    "１０.0.0.0"
  ])("refuses %j", (text) => {
    expect(Either.isLeft(parseCidr(text))).toBe(true)
    expect(CidrString.safeParse(text).success).toBe(false)
  })

  it("explains the refusal through CidrString", () => {
    const result = CidrString.safeParse("10.0.0.0/33")
    expect(result.success).toBe(false)
    expect(result.error?.issues[0]?.message).toMatch(/CIDR range.*prefix length "33".*0 to 32/)
    expect(CidrString.safeParse("010.0.0.1").error?.issues[0]?.message).toMatch(/leading zeros/)
    expect(CidrString.parse("2001:db8::/32")).toBe("2001:db8::/32")
    expect(CidrString.safeParse(42).success).toBe(false)
  })
})

describe("parseCidr: properties", () => {
  it("parses every IPv4 address back to its value", () => {
    fc.assert(
      fc.property(v4Value, (value) => {
        expect(parseCidr(formatIPv4(value))).toEqual(Either.right({ family: 4, network: value, prefix: 32 }))
      })
    )
  })

  it("parses every IPv6 address in every notation back to its value", () => {
    fc.assert(
      fc.property(v6Value, v6Style, (value, style) => {
        expect(parseCidr(formatIPv6(value, style))).toEqual(Either.right({ family: 6, network: value, prefix: 128 }))
      })
    )
  })

  it("agrees with node:net on which address strings are valid", () => {
    const token = fc.constantFrom(
      "0",
      "1",
      "9",
      "00",
      "01",
      "10",
      "255",
      "256",
      "999",
      "f",
      "F",
      "ff",
      "ffff",
      "fffff",
      "db8",
      "g",
      ":",
      "::",
      ".",
      "1.2.3.4",
      "0.0.0.0"
    )
    const fromTokens = fc.array(token, { minLength: 1, maxLength: 14 }).map((tokens) => tokens.join(""))
    // One edit away from a valid address: where parsers most often disagree.
    const nearValid = fc
      .tuple(
        fc.oneof(
          v4Value.map(formatIPv4),
          fc.tuple(v6Value, v6Style).map(([v, style]) => formatIPv6(v, style))
        ),
        fc.nat(),
        fc.constantFrom("", "0", "1", "f", ":", ".", "g", "00"),
        fc.nat({ max: 2 })
      )
      .map(([text, at, insert, remove]) => {
        const i = at % (text.length + 1)
        return text.slice(0, i) + insert + text.slice(i + remove)
      })
    fc.assert(
      fc.property(fc.oneof(fromTokens, nearValid), (text) => {
        expect(Either.isRight(parseCidr(text))).toBe(isIP(text) !== 0)
      }),
      { numRuns: 10000 }
    )
  })
})

describe("matches: IPv4", () => {
  const network = fc.tuple(v4Value, fc.integer({ min: 0, max: 32 }))

  it("puts an address inside its own network, at every prefix", () => {
    fc.assert(
      fc.property(network, ([value, prefix]) => {
        const cidr = cidrOf(`${formatIPv4(value)}/${prefix}`)
        expect(matches(addressOf(formatIPv4(value)), cidr)).toBe(true)
      })
    )
  })

  it("has exact boundaries: first and last in, one beyond either side out", () => {
    fc.assert(
      fc.property(network, ([value, prefix]) => {
        const first = value & mask(32, prefix)
        const last = first | (~mask(32, prefix) & 0xffffffffn)
        const cidr = cidrOf(`${formatIPv4(first)}/${prefix}`)
        expect(cidr.network).toBe(first)
        expect(matches(addressOf(formatIPv4(first)), cidr)).toBe(true)
        expect(matches(addressOf(formatIPv4(last)), cidr)).toBe(true)
        if (first > 0n) expect(matches(addressOf(formatIPv4(first - 1n)), cidr)).toBe(false)
        if (last < 0xffffffffn) expect(matches(addressOf(formatIPv4(last + 1n)), cidr)).toBe(false)
      })
    )
  })

  it("agrees with node:net BlockList on random addresses and ranges", () => {
    fc.assert(
      fc.property(network, v4Value, ([value, prefix], probe) => {
        const list = new BlockList()
        list.addSubnet(formatIPv4(value & mask(32, prefix)), prefix, "ipv4")
        const cidr = cidrOf(`${formatIPv4(value)}/${prefix}`)
        expect(matches(addressOf(formatIPv4(probe)), cidr)).toBe(list.check(formatIPv4(probe), "ipv4"))
      })
    )
  })
})

describe("matches: IPv6", () => {
  const network = fc.tuple(v6Value, fc.integer({ min: 0, max: 128 }))
  const all128 = (1n << 128n) - 1n

  it("puts an address inside its own network, at every prefix", () => {
    fc.assert(
      fc.property(network, v6Style, ([value, prefix], style) => {
        const cidr = cidrOf(`${formatIPv6(value, style)}/${prefix}`)
        expect(matches(addressOf(formatIPv6(value)), cidr)).toBe(true)
      })
    )
  })

  it("has exact boundaries: first and last in, one beyond either side out", () => {
    fc.assert(
      fc.property(network, ([value, prefix]) => {
        const first = value & mask(128, prefix)
        const last = first | (~mask(128, prefix) & all128)
        const cidr = cidrOf(`${formatIPv6(first)}/${prefix}`)
        expect(cidr.network).toBe(first)
        expect(matches(addressOf(formatIPv6(first, "padded")), cidr)).toBe(true)
        expect(matches(addressOf(formatIPv6(last, "upper")), cidr)).toBe(true)
        if (first > 0n) expect(matches(addressOf(formatIPv6(first - 1n)), cidr)).toBe(false)
        if (last < all128) expect(matches(addressOf(formatIPv6(last + 1n)), cidr)).toBe(false)
      })
    )
  })

  it("agrees with node:net BlockList on random addresses and ranges", () => {
    fc.assert(
      fc.property(network, v6Value, ([value, prefix], probe) => {
        const list = new BlockList()
        list.addSubnet(formatIPv6(value & mask(128, prefix)), prefix, "ipv6")
        const cidr = cidrOf(`${formatIPv6(value)}/${prefix}`)
        expect(matches(addressOf(formatIPv6(probe)), cidr)).toBe(list.check(formatIPv6(probe), "ipv6"))
      })
    )
  })
})

describe("IPv4-mapped IPv6", () => {
  it("matches IPv4 ranges as the embedded IPv4 address, and vice versa", () => {
    fc.assert(
      fc.property(v4Value, fc.integer({ min: 0, max: 32 }), v4Value, (value, prefix, probe) => {
        const v4Range = `${formatIPv4(value)}/${prefix}`
        const v6Range = `::ffff:${formatIPv4(value)}/${96 + prefix}`
        const expected = isAllowed(formatIPv4(probe), [v4Range])
        for (const peer of [
          formatIPv4(probe),
          `::ffff:${formatIPv4(probe)}`,
          formatIPv6((0xffffn << 32n) | probe, "full")
        ]) {
          expect(isAllowed(peer, [v4Range])).toBe(expected)
          expect(isAllowed(peer, [v6Range])).toBe(expected)
        }
      })
    )
  })

  it("does not treat other IPv6 addresses ending in an IPv4 address as IPv4", () => {
    expect(isAllowed("::ffff:10.1.2.3", ["10.0.0.0/8"])).toBe(true)
    expect(isAllowed("::10.1.2.3", ["10.0.0.0/8"])).toBe(false)
    expect(isAllowed("::fffe:10.1.2.3", ["10.0.0.0/8"])).toBe(false)
    expect(isAllowed("64:ff9b::10.1.2.3", ["10.0.0.0/8"])).toBe(false)
    expect(isAllowed("1::ffff:10.1.2.3", ["10.0.0.0/8"])).toBe(false)
    expect(isAllowed("::ffff:127.0.0.1", ["127.0.0.1"])).toBe(true)
    expect(isAllowed("127.0.0.1", ["::ffff:127.0.0.1"])).toBe(true)
    expect(isAllowed("127.0.0.1", ["::1"])).toBe(false)
  })
})

describe("parseAddress", () => {
  it.each([
    ["127.0.0.1", 4, 0x7f000001n],
    ["::1", 6, 1n],
    ["::ffff:127.0.0.1", 6, 0xffff7f000001n],
    ["fe80::1%eth0", 6, (0xfe80n << 112n) | 1n],
    ["fe80::1%25", 6, (0xfe80n << 112n) | 1n]
  ] as const)("reads %s", (text, family, value) => {
    expect(parseAddress(text)).toEqual(Option.some({ family, value }))
  })

  it.each(["", "localhost", "127.0.0.1%eth0", "fe80::1%", "10.0.0.0/8", "::1/128", "1.2.3.4:80", "[::1]"])(
    "refuses %j",
    (text) => {
      expect(Option.isNone(parseAddress(text))).toBe(true)
    }
  )
})

describe("isAllowed", () => {
  it("allows everything when the list is empty, even what does not parse", () => {
    fc.assert(fc.property(fc.string(), (address) => isAllowed(address, [])))
  })

  it("never allows an unparsable address when the list is non-empty", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => Option.isNone(parseAddress(s))),
        fc.array(fc.constantFrom("0.0.0.0/0", "::/0", "10.0.0.0/8"), { minLength: 1 }),
        (address, list) => !isAllowed(address, list)
      )
    )
    expect(isAllowed("", ["0.0.0.0/0", "::/0"])).toBe(false)
  })

  it("allows an address if and only if some valid entry matches it", () => {
    const list = ["10.0.0.0/8", "192.168.1.7", "2001:db8::/32", "not-a-cidr", "10.0.0.0/99"]
    expect(isAllowed("10.255.0.1", list)).toBe(true)
    expect(isAllowed("11.0.0.0", list)).toBe(false)
    expect(isAllowed("192.168.1.7", list)).toBe(true)
    expect(isAllowed("192.168.1.8", list)).toBe(false)
    expect(isAllowed("2001:db8:ffff::1", list)).toBe(true)
    expect(isAllowed("2001:db9::1", list)).toBe(false)
    expect(isAllowed("fe80::1%eth0", ["fe80::/10"])).toBe(true)
    // Entries that do not parse admit nobody, rather than everybody.
    expect(isAllowed("10.0.0.1", ["garbage"])).toBe(false)
  })
})
