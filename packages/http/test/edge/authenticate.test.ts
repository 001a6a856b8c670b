import { Access, Errors } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { describe, expect, it } from "vitest"
import { authenticateAdmin, authenticateKey, bearerToken, clientAddressOf } from "../../src/edge/authenticate.js"
import { Reached } from "../../src/edge/Reached.js"
import { HttpFailure } from "../../src/Reply.js"
import { incomingOf, principalOf } from "./fakes.js"

describe("bearerToken", () => {
  it("reads the token of a Bearer authorization, whatever the scheme's case and the spaces around it", () => {
    for (const value of ["Bearer crm_abc", "bearer crm_abc", "BEARER   crm_abc", "Bearer\tcrm_abc  "]) {
      expect(bearerToken(incomingOf({ authorization: value }))).toBe("crm_abc")
    }
  })

  it("reads nothing from another scheme, a missing token or two tokens", () => {
    for (const value of ["Basic dXNlcjpwYXNz", "Token crm_abc", "Bearer", "Bearer ", "Bearer a b"]) {
      expect(bearerToken(incomingOf({ authorization: value }))).toBeUndefined()
    }
    expect(bearerToken(incomingOf())).toBeUndefined()
  })
})

describe("clientAddressOf", () => {
  const forwarded = (remoteAddress: string, xff: string) => incomingOf({ "x-forwarded-for": xff }, remoteAddress)

  it("with no trusted proxy, is the socket's address and ignores X-Forwarded-For", () => {
    expect(clientAddressOf([])(forwarded("203.0.113.7", "198.51.100.1"))).toBe("203.0.113.7")
  })

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", () => {
    expect(clientAddressOf(["10.0.0.1"])(forwarded("203.0.113.7", "198.51.100.1"))).toBe("203.0.113.7")
  })

  it("from a trusted proxy, is the nearest hop that is not itself trusted", () => {
    const address = clientAddressOf(["10.0.0.1", "10.0.0.2"])
    // The client may write any first hops it likes; only what the trusted proxies appended counts.
    expect(address(forwarded("10.0.0.1", "1.1.1.1, 198.51.100.1, 10.0.0.2"))).toBe("198.51.100.1")
    expect(address(forwarded("10.0.0.1", "198.51.100.1"))).toBe("198.51.100.1")
    expect(address(forwarded("10.0.0.1", " 198.51.100.1 ,, "))).toBe("198.51.100.1")
  })

  it("trusts a proxy by CIDR range", () => {
    const address = clientAddressOf(["10.0.0.0/8", "fd00::/8"])
    expect(address(forwarded("10.20.30.40", "198.51.100.1, 10.1.2.3"))).toBe("198.51.100.1")
    expect(address(forwarded("fd12::1", "2001:db8::5"))).toBe("2001:db8::5")
    expect(address(forwarded("11.0.0.1", "198.51.100.1"))).toBe("11.0.0.1")
  })

  it("from a trusted proxy with no untrusted hop, is the proxy's own address", () => {
    const address = clientAddressOf(["10.0.0.0/8"])
    expect(address(forwarded("10.0.0.1", "10.0.0.2"))).toBe("10.0.0.1")
    expect(address(incomingOf({}, "10.0.0.1"))).toBe("10.0.0.1")
  })
})

describe("authenticateAdmin", () => {
  const token = Option.some(Redacted.make("admin-secret"))
  const run = (adminToken: Option.Option<Redacted.Redacted<string>>, headers: Record<string, string>) =>
    Effect.runSync(Effect.either(authenticateAdmin(adminToken, incomingOf(headers))))

  it("without a configured token, the admin API does not exist", () => {
    const result = run(Option.none(), { authorization: "Bearer admin-secret" })
    expect(result).toMatchObject({ _tag: "Left", left: { code: "not_found" } })
  })

  it("asks for the token when none is sent", () => {
    expect(run(token, {})).toMatchObject({ _tag: "Left", left: { code: "missing_bearer_token" } })
    expect(run(token, { authorization: "Basic YWRtaW4" })).toMatchObject({
      _tag: "Left",
      left: { code: "missing_bearer_token" }
    })
  })

  it("refuses a wrong token, a longer one and a prefix alike", () => {
    for (const sent of ["wrong", "admin-secret2", "admin-secre", "ADMIN-SECRET"]) {
      const result = run(token, { authorization: `Bearer ${sent}` })
      expect(result).toMatchObject({ _tag: "Left", left: { code: "invalid_api_key" } })
      expect(result._tag === "Left" && result.left).toBeInstanceOf(HttpFailure)
    }
  })

  it("admits the configured token", () => {
    expect(run(token, { authorization: "Bearer admin-secret" })).toMatchObject({ _tag: "Right" })
  })
})

describe("authenticateKey", () => {
  /** The core's admission as a script: what it was asked, and what it answers. */
  const admitting = (answer: Effect.Effect<Access.Admitted, Errors.RateLimited>) => {
    const asked: Array<unknown> = []
    const access = {
      rateLimit: 120,
      admit: (token: string | undefined, clientAddress: string, spend: boolean) => {
        asked.push({ token, clientAddress, spend })
        return answer
      }
    } as unknown as Access.Access["Type"]
    return { asked, provide: Effect.provideService(Access.Access, access) }
  }
  const start = Reached.start(incomingOf({ authorization: "Bearer crm_key" }), "req-1").matched("/api/v1/contacts")

  it("asks the core to admit the bearer token from the client's address, and reaches the key with its budget", () => {
    const principal = principalOf()
    const { asked, provide } = admitting(Effect.succeed({ principal, remaining: 7 }))
    const admitted = Effect.runSync(provide(authenticateKey(start, "198.51.100.1", false)))
    expect(asked).toEqual([{ token: "crm_key", clientAddress: "198.51.100.1", spend: false }])
    expect(admitted).toMatchObject({ route: "/api/v1/contacts", principal, budget: { limit: 120, remaining: 7 } })
    expect(start.principal).toBeUndefined()
  })

  it("fails as the core refuses", () => {
    const limited = new Errors.RateLimited({ detail: "spent", retryAfterSeconds: 3, limit: 120 })
    const { provide } = admitting(Effect.fail(limited))
    expect(Effect.runSync(Effect.flip(provide(authenticateKey(start, "198.51.100.1", true))))).toBe(limited)
  })
})
