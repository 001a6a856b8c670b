import type { IncomingMessage } from "node:http"
import { Errors, type Organisation, People } from "@crm/core"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  admitVisitor,
  authenticateSession,
  cookieValue,
  expectedOrigin,
  refuseForeignOrigin
} from "../../src/edge/authenticate.js"
import { lineOf } from "../../src/edge/observe.js"
import { Reached } from "../../src/edge/Reached.js"
import { incomingOf } from "./fakes.js"

const TOKEN = "Zm9vYmFyYmF6cXV4LXNlc3Npb24tdG9rZW4tMzItYnl0ZXM"
const ORGANISATION = "5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d" as Organisation.OrganisationId

describe("cookieValue", () => {
  it("finds the named cookie among others, with or without spaces and quotes", () => {
    expect(cookieValue(`crm_session=${TOKEN}`, "crm_session")).toBe(TOKEN)
    expect(cookieValue(`theme=dark; crm_session=${TOKEN}; lang=cs`, "crm_session")).toBe(TOKEN)
    expect(cookieValue(`theme=dark;crm_session=${TOKEN}`, "crm_session")).toBe(TOKEN)
    expect(cookieValue(`crm_session="${TOKEN}"`, "crm_session")).toBe(TOKEN)
  })

  it("takes nothing from a cookie of a like name, an empty or malformed value, or no header", () => {
    for (const header of [
      `xcrm_session=${TOKEN}`,
      `crm_session_old=${TOKEN}`,
      "crm_session=",
      "crm_session",
      'crm_session="',
      "crm_session=a b",
      "crm_session=%41%42",
      `crm_session=${"a".repeat(129)}`,
      "crm_session=\u0000abc"
    ]) {
      expect(cookieValue(header, "crm_session"), header).toBeUndefined()
    }
    expect(cookieValue(undefined, "crm_session")).toBeUndefined()
  })

  it("skips a malformed pair before the session's", () => {
    expect(cookieValue(`=; ;; crm_session=%zz; crm_session=${TOKEN}`, "crm_session")).toBe(TOKEN)
  })

  it("never throws, and gives only a token, whatever the header holds", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (header) => {
        const value = cookieValue(header, "crm_session")
        return value === undefined || /^[A-Za-z0-9_-]{1,128}$/.test(value)
      }),
      { numRuns: 500 }
    )
  })
})

describe("expectedOrigin", () => {
  const withSocket = (headers: Record<string, string>, remoteAddress: string, encrypted = false) =>
    ({ headers, method: "POST", socket: { remoteAddress, encrypted } }) as unknown as IncomingMessage

  it("is the public URL's origin when one is configured, whatever the request says", () => {
    const origin = expectedOrigin("https://crm.example.com/base/", [])
    expect(origin(incomingOf({ host: "evil.example" }))).toBe("https://crm.example.com")
  })

  it("else is the Host over http, or https on a TLS socket", () => {
    const origin = expectedOrigin(undefined, [])
    expect(origin(incomingOf({ host: "Localhost:8080" }))).toBe("http://localhost:8080")
    expect(origin(incomingOf({ host: "[::1]:8080" }))).toBe("http://[::1]:8080")
    expect(origin(withSocket({ host: "crm.example" }, "203.0.113.7", true))).toBe("https://crm.example")
  })

  it("believes X-Forwarded-Proto from a trusted proxy only", () => {
    const headers = { host: "crm.example", "x-forwarded-proto": "https" }
    expect(expectedOrigin(undefined, ["10.0.0.1"])(withSocket(headers, "10.0.0.1"))).toBe("https://crm.example")
    expect(expectedOrigin(undefined, ["10.0.0.1"])(withSocket(headers, "203.0.113.7"))).toBe("http://crm.example")
    expect(expectedOrigin(undefined, [])(withSocket(headers, "10.0.0.1"))).toBe("http://crm.example")
  })

  it("is nothing without a sane Host", () => {
    const origin = expectedOrigin(undefined, [])
    expect(origin(incomingOf({}))).toBeUndefined()
    expect(origin(incomingOf({ host: "crm.example/evil" }))).toBeUndefined()
    expect(origin(incomingOf({ host: "a b" }))).toBeUndefined()
  })
})

describe("refuseForeignOrigin", () => {
  const refused = (headers: Record<string, string>, expected: string | undefined) =>
    Effect.runSync(Effect.either(refuseForeignOrigin(incomingOf(headers), expected)))

  it("lets a request without an Origin, or with the server's, through", () => {
    expect(refused({}, "https://crm.example")._tag).toBe("Right")
    expect(refused({ origin: "https://crm.example" }, "https://crm.example")._tag).toBe("Right")
    expect(refused({ origin: "HTTPS://CRM.EXAMPLE" }, "https://crm.example")._tag).toBe("Right")
  })

  it("refuses another site, another scheme or port, `null`, and any Origin when the server's is unknown", () => {
    for (const [origin, expected] of [
      ["https://evil.example", "https://crm.example"],
      ["http://crm.example", "https://crm.example"],
      ["https://crm.example:8443", "https://crm.example"],
      ["https://crm.example.evil.example", "https://crm.example"],
      ["null", "https://crm.example"],
      ["https://crm.example", undefined]
    ] as const) {
      expect(refused({ origin }, expected)).toMatchObject({ _tag: "Left", left: { code: "csrf_refused" } })
    }
  })
})

describe("admitVisitor", () => {
  const start = Reached.start(incomingOf({ origin: "https://evil.example" }, "203.0.113.7", "POST"), "r")
  const client = { address: "203.0.113.7", device: "Firefox" }

  it("reaches the visitor's address and browser", () => {
    const reached = Effect.runSync(admitVisitor(start, client, true, "https://evil.example"))
    expect(reached.caller).toEqual(client)
  })

  it("refuses a write from another site, and lets a read through", () => {
    const write = Effect.runSync(Effect.either(admitVisitor(start, client, true, "https://crm.example")))
    expect(write).toMatchObject({ _tag: "Left", left: { code: "csrf_refused" } })
    expect(Effect.runSync(Effect.either(admitVisitor(start, client, false, "https://crm.example")))._tag).toBe("Right")
  })
})

describe("authenticateSession", () => {
  const account = { id: "acc-1", email: "ada@example.com" }
  const principal = {
    session: { id: "ses-1" },
    account,
    csrfToken: "the-csrf-token",
    address: "203.0.113.7"
  } as unknown as People.SessionPrincipal

  /** The people service as a script: who asked with which token, and into which organisation. */
  const people = (members: ReadonlyArray<string>) => {
    const asked: Array<unknown> = []
    const service = {
      authenticate: (token: string | undefined, address: string) => {
        asked.push({ token, address })
        return token === TOKEN ? Effect.succeed(principal) : Effect.fail(new Errors.SessionRequired({ detail: "no" }))
      },
      enter: (signedIn: People.SessionPrincipal, organisationId: Organisation.OrganisationId) =>
        members.includes(organisationId)
          ? Effect.succeed({ ...signedIn, organisationId, role: "admin" })
          : Effect.fail(new Errors.NotFound({ detail: "no such organisation" }))
    } as unknown as People.People["Type"]
    return { asked, provide: Effect.provideService(People.People, service) }
  }

  const request = (method: string, headers: Record<string, string>) =>
    Reached.start(incomingOf(headers, "203.0.113.7", method), "r").matched("/settings/v1/organisations/{id}")

  const run = (
    reached: Reached,
    options: { readonly organisation?: Organisation.OrganisationId; readonly members?: ReadonlyArray<string> } = {}
  ) => {
    const { asked, provide } = people(options.members ?? [ORGANISATION])
    const result = Effect.runSync(
      Effect.either(
        provide(
          authenticateSession(
            reached,
            "203.0.113.7",
            reached.method !== "GET",
            "https://crm.example",
            options.organisation
          )
        )
      )
    )
    return { asked, result }
  }

  it("reaches the person behind the cookie, from the client's address", () => {
    const { asked, result } = run(request("GET", { cookie: `crm_session=${TOKEN}` }))
    expect(asked).toEqual([{ token: TOKEN, address: "203.0.113.7" }])
    expect(result).toMatchObject({
      _tag: "Right",
      right: { caller: principal, route: "/settings/v1/organisations/{id}" }
    })
  })

  it("asks with no token when there is no session cookie, and fails as the service refuses", () => {
    const { asked, result } = run(request("GET", { cookie: "theme=dark" }))
    expect(asked).toEqual([{ token: undefined, address: "203.0.113.7" }])
    expect(result).toMatchObject({ _tag: "Left", left: { code: "session_required" } })
  })

  it("enters the path's organisation: the person with their role there, or not_found for one they are not in", () => {
    const member = run(request("GET", { cookie: `crm_session=${TOKEN}` }), { organisation: ORGANISATION })
    expect(member.result).toMatchObject({
      _tag: "Right",
      right: { caller: { organisationId: ORGANISATION, role: "admin" } }
    })
    const stranger = run(request("GET", { cookie: `crm_session=${TOKEN}` }), {
      organisation: ORGANISATION,
      members: []
    })
    expect(stranger.result).toMatchObject({ _tag: "Left", left: { code: "not_found" } })
  })

  it("admits a write with the session's CSRF token, from the site or with no Origin", () => {
    const cookie = `crm_session=${TOKEN}`
    for (const headers of [
      { cookie, "x-csrf-token": "the-csrf-token" },
      { cookie, "x-csrf-token": "the-csrf-token", origin: "https://crm.example" }
    ]) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        expect(run(request(method, headers)).result._tag).toBe("Right")
      }
    }
  })

  it("refuses a write without the token, with another token, or from another site, as csrf_refused", () => {
    const cookie = `crm_session=${TOKEN}`
    for (const headers of [
      { cookie },
      { cookie, "x-csrf-token": "" },
      { cookie, "x-csrf-token": "the-csrf-token2" },
      { cookie, "x-csrf-token": "the-csrf-toke" },
      { cookie, "x-csrf-token": "the-csrf-token", origin: "https://evil.example" },
      { cookie, "x-csrf-token": "the-csrf-token", origin: "null" }
    ]) {
      expect(run(request("POST", headers)).result).toMatchObject({ _tag: "Left", left: { code: "csrf_refused" } })
    }
  })

  it("refuses a write from another site before it looks the session up", () => {
    const { asked, result } = run(request("DELETE", { cookie: `crm_session=${TOKEN}`, origin: "https://evil.example" }))
    expect(result).toMatchObject({ _tag: "Left", left: { code: "csrf_refused" } })
    expect(asked).toEqual([])
  })

  it("logs the member's organisation, never the cookie or the CSRF token", () => {
    const { result } = run(request("POST", { cookie: `crm_session=${TOKEN}`, "x-csrf-token": "the-csrf-token" }), {
      organisation: ORGANISATION
    })
    if (result._tag === "Left") throw new Error("not admitted")
    const line = lineOf(result.right, { status: 200, headers: {}, body: "" }, 1)
    expect(line).toMatchObject({
      organisation_id: ORGANISATION,
      key_id: null,
      route: "/settings/v1/organisations/{id}"
    })
    expect(JSON.stringify(line)).not.toContain(TOKEN)
    expect(JSON.stringify(line)).not.toContain("the-csrf-token")
  })
})
