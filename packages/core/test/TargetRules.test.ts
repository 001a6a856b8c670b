import * as Either from "effect/Either"
import * as Option from "effect/Option"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { checkAddress, checkResolved, checkUrl, type Rule } from "../src/Webhooks/TargetRules.js"

const refusal = (url: string, options = { httpsRequired: false, allowPrivate: false }): Rule | undefined =>
  Either.match(checkUrl(url, options), { onLeft: (left) => left.rule, onRight: () => undefined })

const dotted = (value: number): string => [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join(".")
const hexGroups = (value: number): string =>
  `${((value >>> 16) & 0xffff).toString(16)}:${(value & 0xffff).toString(16)}`

const ipv4 = fc.integer({ min: 0, max: 0xffffffff })

/** An address inside `base/prefix`, for any host bits. */
const inRange = (base: number, prefix: number) =>
  fc
    .integer({ min: 0, max: 2 ** (32 - prefix) - 1 })
    .map((host) => dotted((((base >>> 0) & (prefix === 0 ? 0 : ~0 << (32 - prefix))) | host) >>> 0))

const v4 = (text: string): number => text.split(".").reduce((value, octet) => value * 256 + Number(octet), 0)

describe("webhook target rules", () => {
  it.each([
    ["http://example.com/hook", undefined],
    ["https://8.8.8.8/", undefined],
    ["https://[2606:4700:4700::1111]/", undefined],
    ["http://[::ffff:8.8.8.8]/", undefined],
    ["http://[2002:808:808::1]/", undefined],
    ["http://[64:ff9b::808:808]/", undefined],
    ["mailto:a@example.com", "scheme"],
    ["file:///etc/passwd", "scheme"],
    ["//no-scheme", "invalid_url"],
    ["https://user@8.8.8.8/", "credentials"],
    ["https://:pw@8.8.8.8/", "credentials"],
    ["http://2130706433/", "loopback"],
    ["http://0x7f000001/", "loopback"],
    ["http://0x7f.1/", "loopback"],
    ["http://017700000001/", "loopback"],
    ["http://0177.0.0.1/", "loopback"],
    ["http://127.1/", "loopback"],
    ["http://127.255.255.254/", "loopback"],
    ["http://[0:0:0:0:0:0:0:1]/", "loopback"],
    ["http://[::ffff:7f00:1]/", "loopback"],
    ["http://[::ffff:169.254.169.254]/", "metadata"],
    ["http://[2002:a9fe:a9fe::]/", "metadata"],
    ["http://[64:ff9b::192.168.0.1]/", "private"],
    ["http://[fc00::1]/", "private"],
    ["http://[fe80::1%25eth0]/", "invalid_url"],
    ["http://[::]/", "unspecified"],
    ["http://0/", "unspecified"],
    ["http://[ff02::1]/", "multicast"],
    ["http://239.255.255.250/", "multicast"],
    ["http://198.18.0.1/", "reserved"],
    ["http://localhost:8080/", "loopback"],
    ["http://api.LOCALHOST./", "loopback"],
    ["http://[::8.8.8.8]/", "reserved"]
  ])("%s → %s", (url, rule) => {
    expect(refusal(url)).toBe(rule)
  })

  it("requires https only when told to, and lifts only the address rule for private targets", () => {
    const strict = { httpsRequired: true, allowPrivate: false }
    expect(refusal("http://8.8.8.8/", strict)).toBe("https_required")
    expect(refusal("https://8.8.8.8/", strict)).toBeUndefined()
    const local = { httpsRequired: false, allowPrivate: true }
    expect(refusal("http://127.0.0.1:8080/", local)).toBeUndefined()
    expect(refusal("https://user:pw@127.0.0.1/", local)).toBe("credentials")
    expect(refusal("ftp://127.0.0.1/", local)).toBe("scheme")
  })

  it.each([
    ["10.0.0.0", 8, "private"],
    ["172.16.0.0", 12, "private"],
    ["192.168.0.0", 16, "private"],
    ["127.0.0.0", 8, "loopback"],
    ["100.64.0.0", 10, "shared_address_space"],
    ["0.0.0.0", 8, "unspecified"],
    ["224.0.0.0", 4, "multicast"]
  ] as const)("refuses every address of %s/%i as %s, in any notation the URL parser reads", (base, prefix, rule) => {
    fc.assert(
      fc.property(inRange(v4(base), prefix), (address) => {
        const value = v4(address)
        expect(refusal(`http://${address}/`)).toBe(rule)
        expect(refusal(`http://${value}/`)).toBe(rule)
        expect(refusal(`http://0x${value.toString(16)}/`)).toBe(rule)
        expect(refusal(`http://0${value.toString(8)}/`)).toBe(rule)
        expect(refusal(`http://[::ffff:${address}]/`)).toBe(rule)
        expect(refusal(`http://[64:ff9b::${hexGroups(value)}]/`)).toBe(rule)
        expect(refusal(`http://[2002:${hexGroups(value)}::1]/`)).toBe(rule)
      })
    )
  })

  it("treats an IPv4 address the same in every notation and every IPv6 wrapping", () => {
    fc.assert(
      fc.property(ipv4, (value) => {
        const expected = refusal(`http://${dotted(value)}/`)
        expect(refusal(`http://${value}/`)).toBe(expected)
        expect(refusal(`http://0x${value.toString(16)}/`)).toBe(expected)
        expect(refusal(`http://[::ffff:${dotted(value)}]/`)).toBe(expected)
        expect(refusal(`http://[64:ff9b::${hexGroups(value)}]/`)).toBe(expected)
        expect(refusal(`http://[2002:${hexGroups(value)}::]/`)).toBe(expected)
      })
    )
  })

  it("refuses a resolved name when any of its addresses is not public, and leaves an unresolved one to the delivery check", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: v4("8.0.0.0"), max: v4("8.255.255.255") }).map(dotted), { maxLength: 4 }),
        fc.array(fc.integer({ min: v4("8.0.0.0"), max: v4("8.255.255.255") }).map(dotted), { maxLength: 4 }),
        fc.constantFrom("127.0.0.1", "10.9.8.7", "::1", "fe80::1", "169.254.169.254", "::ffff:192.168.1.1"),
        (before, after, bad) => {
          expect(Option.isSome(checkResolved([...before, bad, ...after]))).toBe(true)
          expect(checkResolved([...before, ...after])).toEqual(Option.none())
        }
      )
    )
  })

  it("reads addresses as a socket reports them", () => {
    expect(Option.map(checkAddress("::ffff:127.0.0.1"), (r) => r.rule)).toEqual(Option.some("loopback"))
    expect(Option.map(checkAddress("fe80::1%eth0"), (r) => r.rule)).toEqual(Option.some("link_local"))
    expect(checkAddress("93.184.215.14")).toEqual(Option.none())
    // Documentation ranges reach no internal service: they are not refused.
    expect(checkAddress("203.0.113.7")).toEqual(Option.none())
    expect(checkAddress("2001:db8::1")).toEqual(Option.none())
  })
})
