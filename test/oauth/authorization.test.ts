/**
 * Authorization requests the server refuses (RFC 6749 4.1.2.1, OAuth 2.1): one whose client or
 * redirect it cannot trust ends on its own error page and never goes to the redirect it names;
 * one from a known client to its registered redirect goes back there with the error (PKCE S256
 * required, tokens for the MCP endpoint only) and with no code.
 */

import * as StorageMemory from "@crm/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/server.js"
import { type Answer, authorizationQuery, FormBrowser, pkce, type Registered, registered } from "./support.js"

describe("authorization requests", () => {
  let server: TestServer
  let client: Registered
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer)
    client = await registered(server)
  })
  afterAll(() => server?.close())

  const authorize = (query: URLSearchParams): Promise<Answer> =>
    new FormBrowser(server).request("GET", `/oauth/authorize?${query}`)

  /** The server's error page: no redirect anywhere, and the error named. */
  const errorPage = (answer: Answer, error: string) => {
    expect(answer.status).toBe(400)
    expect(answer.location).toBeUndefined()
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
    expect(answer.text).toContain("This request cannot be completed")
    expect(answer.text).toContain(error)
  }

  /**
   * Back to the client's registered redirect with the error and its state, and no code: in the
   * query, or in the fragment where the response type asked for that (RFC 6749 4.2.2.1).
   */
  const sentBack = (answer: Answer, error: string, part: "query" | "fragment" = "query") => {
    expect(answer.status).toBe(303)
    expect(`${answer.location?.origin}${answer.location?.pathname}`).toBe(client.redirect)
    const query = part === "query" ? answer.location!.searchParams : new URLSearchParams(answer.location!.hash.slice(1))
    expect(query.get("error")).toBe(error)
    expect(query.get("state")).toBe("the-client-state")
    expect(query.get("iss")).toBe(server.url)
    expect(query.get("code")).toBeNull()
  }

  it("ends a request from an unknown client on its error page, not at the redirect it names", async () => {
    const { challenge } = pkce()
    errorPage(
      await authorize(
        authorizationQuery(server, { client_id: "never-registered", redirect: client.redirect }, challenge)
      ),
      "invalid_client"
    )
  })

  it("ends a request naming a redirect its client did not register on the error page", async () => {
    const { challenge } = pkce()
    for (const redirect of ["http://127.0.0.1:9/elsewhere", "https://attacker.example/callback"]) {
      errorPage(await authorize(authorizationQuery(server, { ...client, redirect }, challenge)), "invalid_redirect_uri")
    }
  })

  it("sends a request without a PKCE challenge back with invalid_request", async () => {
    const { challenge } = pkce()
    sentBack(
      await authorize(
        authorizationQuery(server, client, challenge, { code_challenge: undefined, code_challenge_method: undefined })
      ),
      "invalid_request"
    )
  })

  it("sends a request with the plain PKCE method back with invalid_request: S256 only", async () => {
    const { verifier } = pkce()
    sentBack(
      await authorize(authorizationQuery(server, client, verifier, { code_challenge_method: "plain" })),
      "invalid_request"
    )
  })

  it("sends a request for another resource back with invalid_target", async () => {
    const { challenge } = pkce()
    for (const resource of [`${server.url}/api/v1`, "https://elsewhere.example/api/mcp"]) {
      sentBack(await authorize(authorizationQuery(server, client, challenge, { resource })), "invalid_target")
    }
  })

  it("sends a request for a token in the redirect (the implicit flow) back with unsupported_response_type", async () => {
    const { challenge } = pkce()
    sentBack(
      await authorize(authorizationQuery(server, client, challenge, { response_type: "token" })),
      "unsupported_response_type",
      "fragment"
    )
  })

  it("refuses a request of more parameters than any authorization has (64) before the provider reads them", async () => {
    const many = await fetch(`${server.url}/oauth/authorize?${"scope=read&".repeat(65)}`)
    expect(many.status).toBe(400)
    expect(((await many.json()) as { error: string }).error).toBe("invalid_request")
    const token = await fetch(`${server.url}/oauth/token?${"a=1&".repeat(100)}`, { method: "POST" })
    expect(token.status).toBe(400)
  })
})
