import { describe, expect, it } from "vitest"
import { createAdminClient, createAuthClient, createSettingsClient } from "../src/index.js"

/** A fetch that keeps what each request carried and answers 204. */
const recording = () => {
  const sent: Array<Request> = []
  const fetch = async (request: Request) => {
    sent.push(request)
    return new Response(null, { status: 204 })
  }
  return { sent, fetch }
}

// Untyped calls: this test is about the headers every call of a session client carries, not a route.
type Untyped = Record<string, (path: string, init?: object) => Promise<{ response?: Response }>>

describe("the session clients", () => {
  it("send the session's CSRF token with every write, as it is when the write is made, and no Authorization", async () => {
    const { sent, fetch } = recording()
    let token: string | undefined
    const settings = createSettingsClient({
      baseUrl: "https://crm.example.com/",
      fetch,
      csrfToken: () => token
    }) as unknown as Untyped
    await settings.DELETE!("/organisations/o/keys/k")
    token = "first"
    await settings.POST!("/organisations/o/keys", { body: { scopes: ["read"] } })
    token = "second"
    await settings.PUT!("/organisations/o/settings", { body: {} })
    await settings.PATCH!("/organisations/o/users/u", { body: { role: "admin" } })
    expect(sent.map((request) => request.headers.get("x-csrf-token"))).toEqual([null, "first", "second", "second"])
    expect(sent.map((request) => request.url)).toEqual([
      "https://crm.example.com/settings/v1/organisations/o/keys/k",
      "https://crm.example.com/settings/v1/organisations/o/keys",
      "https://crm.example.com/settings/v1/organisations/o/settings",
      "https://crm.example.com/settings/v1/organisations/o/users/u"
    ])
    for (const request of sent) {
      expect(request.headers.get("authorization")).toBeNull()
      expect(request.headers.get("idempotency-key")).toBeNull()
      expect(request.credentials).toBe("same-origin")
    }
  })

  it("send no CSRF token with a read, and keep one the caller set", async () => {
    const { sent, fetch } = recording()
    const auth = createAuthClient({
      baseUrl: "https://crm.example.com",
      fetch,
      csrfToken: () => "token"
    }) as unknown as Untyped
    await auth.GET!("/session")
    await auth.POST!("/sign-out", { body: {}, headers: { "X-CSRF-Token": "given" } })
    expect(sent.map((request) => [request.url, request.headers.get("x-csrf-token")])).toEqual([
      ["https://crm.example.com/auth/v1/session", null],
      ["https://crm.example.com/auth/v1/sign-out", "given"]
    ])
  })

  it("leave the other clients as they were: a bearer token, and no CSRF token", async () => {
    const { sent, fetch } = recording()
    const admin = createAdminClient({
      baseUrl: "https://crm.example.com",
      adminToken: "secret",
      fetch
    }) as unknown as Untyped
    await admin.POST!("/organisations", { body: { name: "Acme" } })
    expect(sent[0]!.headers.get("authorization")).toBe("Bearer secret")
    expect(sent[0]!.headers.get("x-csrf-token")).toBeNull()
  })
})
