import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSiteRefusal, type SiteOptions } from "../../src/edge/origin.js"
import { incomingOf } from "./fakes.js"

const refusedOf = (options: Omit<SiteOptions, "trustedProxies">) => {
  const refusal = makeSiteRefusal({ trustedProxies: [], ...options })
  return (headers: Record<string, string>) => refusal(incomingOf(headers))?.code
}

describe("makeSiteRefusal", () => {
  it("does not check Host on every interface without a public URL: no name is more the server's than another", () => {
    for (const listenHost of ["0.0.0.0", "::", undefined]) {
      const refused = refusedOf({ listenHost })
      expect(refused({ host: "evil.example:3000" }), listenHost).toBeUndefined()
      // Origin still: the Host's own origin passes, another does not.
      expect(refused({ host: "evil.example:3000", origin: "http://evil.example:3000" })).toBeUndefined()
      expect(refused({ host: "crm.lan:3000", origin: "http://evil.example" })).toBe("origin_refused")
    }
  })

  it("checks Host on every interface with a public URL: its host, an allowed origin's and loopback names", () => {
    const refused = refusedOf({
      listenHost: "0.0.0.0",
      publicUrl: "https://crm.example.com/",
      allowedOrigins: ["https://assistant.example"]
    })
    for (const host of ["crm.example.com", "CRM.example.com:443", "assistant.example", "localhost:3000"]) {
      expect(refused({ host }), host).toBeUndefined()
    }
    expect(refused({ host: "evil.example" })).toBe("origin_refused")
    expect(refused({ host: "crm.example.com.evil.example" })).toBe("origin_refused")
  })

  it("on a given address, takes that address as one of the server's names", () => {
    const refused = refusedOf({ listenHost: "10.0.0.5" })
    expect(refused({ host: "10.0.0.5:3000" })).toBeUndefined()
    expect(refused({ host: "10.0.0.6:3000" })).toBe("origin_refused")
    const onIpv6 = refusedOf({ listenHost: "::1" })
    expect(onIpv6({ host: "[::1]:3000" })).toBeUndefined()
    expect(onIpv6({ host: "[::2]:3000" })).toBe("origin_refused")
  })

  it("takes an Origin in any case and a configured origin however it is written", () => {
    const refused = refusedOf({ listenHost: "127.0.0.1", allowedOrigins: ["HTTPS://Assistant.Example:443/"] })
    expect(refused({ host: "127.0.0.1:3000", origin: "https://assistant.example" })).toBeUndefined()
    expect(refused({ host: "127.0.0.1:3000", origin: "HTTP://127.0.0.1:3000" })).toBeUndefined()
  })

  it("refuses a Host that names no host, and never throws, whatever the headers hold", () => {
    const refused = refusedOf({ listenHost: "127.0.0.1" })
    for (const host of ["localhost:3000:1", "[::1", "localhost@evil.example", "127.0.0.1:abc", "::1"]) {
      expect(refused({ host }), host).toBe("origin_refused")
    }
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 100 }), fc.string({ maxLength: 100 }), (host, origin) => {
        const code = refused({ host, origin })
        return code === undefined || code === "origin_refused"
      }),
      { numRuns: 300 }
    )
  })
})
