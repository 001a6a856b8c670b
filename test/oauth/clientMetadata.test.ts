/**
 * Clients known by a Client ID Metadata Document (the MCP 2025-11-25 profile's first choice):
 * the client_id is an https URL, and the document served there names the client. The consent
 * screen says where the name comes from; a document that does not name its own URL as its
 * client_id, or that names a redirect OAuth 2.1 does not allow, makes no client, and the request
 * ends on the error page without going to any redirect.
 */

import * as StorageMemory from "@crm/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withOwner } from "../support/people.js"
import { startServer, type TestServer } from "../support/server.js"
import {
  type Answer,
  authorizationQuery,
  consentForm,
  consentScreen,
  exchange,
  FormBrowser,
  LOOPBACK_REDIRECT,
  mcp,
  pkce
} from "./support.js"

const document = (clientId: string, more: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_name: "Example Assistant",
  redirect_uris: [LOOPBACK_REDIRECT],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  ...more
})

const ASSISTANT = "https://assistant.example/oauth/client.json"
const MISNAMED = "https://misnamed.example/oauth/client.json"
const PLAIN_HTTP = "https://plain-http.example/oauth/client.json"
const MISSING = "https://missing.example/oauth/client.json"

/** The documents the assistants' sites serve, in place of the network. */
const DOCUMENTS: Record<string, unknown> = {
  [ASSISTANT]: document(ASSISTANT),
  [MISNAMED]: document("https://assistant.example/oauth/client.json"),
  [PLAIN_HTTP]: document(PLAIN_HTTP, { redirect_uris: ["http://plain-http.example/callback"] })
}

const serveDocuments = (async (input: string | URL | Request) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
  const found = DOCUMENTS[url]
  return found === undefined ? new Response("not found", { status: 404 }) : Response.json(found)
}) as typeof fetch

describe("clients known by their metadata document", () => {
  let server: TestServer
  let owner: Awaited<ReturnType<typeof withOwner>>
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer, { clientMetadataFetch: serveDocuments })
    owner = await withOwner(server, "Documented org")
  })
  afterAll(() => server?.close())

  const authorize = (clientId: string, redirect = LOOPBACK_REDIRECT): Promise<Answer> =>
    new FormBrowser(server, owner.person.cookie()).request(
      "GET",
      `/oauth/authorize?${authorizationQuery(server, { client_id: clientId, redirect }, pkce().challenge)}`
    )

  const errorPage = (answer: Answer, error: string) => {
    expect(answer.status).toBe(400)
    expect(answer.location).toBeUndefined()
    expect(answer.text).toContain("This request cannot be completed")
    expect(answer.text).toContain(`<p class="error">${error}</p>`)
  }

  it("names the client and where its document is served, and connects it", async () => {
    const client = { client_id: ASSISTANT, redirect: LOOPBACK_REDIRECT }
    const { verifier, challenge } = pkce()
    const browser = new FormBrowser(server, owner.person.cookie())
    const screen = await consentScreen(browser, authorizationQuery(server, client, challenge))
    expect(screen.page.status).toBe(200)
    expect(screen.page.text).toContain("Connect Example Assistant to your CRM")
    expect(screen.page.text).toContain("its metadata document, served at assistant.example")

    const back = await browser.follow(
      await browser.request(
        "POST",
        screen.path,
        consentForm({
          csrf_token: screen.csrf!,
          organisation: owner.organisation.id,
          scope: ["read", "write"],
          action: "allow"
        })
      )
    )
    const code = back.location?.searchParams.get("code")
    expect(code).toBeTypeOf("string")
    const tokens = await exchange(server, { client, code: code!, verifier })
    expect(tokens.status, tokens.text).toBe(200)
    expect((await mcp(server, tokens.body.access_token)).status).toBe(200)
    const apps = await owner.person.settings(owner.organisation.id).get("/apps")
    expect(apps.body.data).toEqual([
      expect.objectContaining({ client_id: ASSISTANT, client_name: "Example Assistant" })
    ])
  })

  it("refuses a document whose client_id is not its own URL", async () => {
    errorPage(await authorize(MISNAMED), "invalid_client_metadata")
  })

  it("refuses a document naming an http redirect to another machine", async () => {
    errorPage(await authorize(PLAIN_HTTP, "http://plain-http.example/callback"), "invalid_redirect_uri")
  })

  it("refuses a client_id whose document cannot be fetched", async () => {
    errorPage(await authorize(MISSING), "invalid_client")
  })
})
