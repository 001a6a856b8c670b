/**
 * How a client learns to authorize (RFC 9728, RFC 8414, the MCP 2025-11-25 authorization
 * profile), and what the MCP endpoint answers a request without a token it takes: 401 with the
 * challenge naming the protected resource metadata, `error="invalid_token"` when it sent one.
 */

import * as StorageMemory from "@crm/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withOwner } from "../support/people.js"
import { startServer, type TestServer } from "../support/server.js"
import { consented, exchange, mcp } from "./support.js"

describe("discovery and the MCP endpoint's challenge", () => {
  let server: TestServer
  let metadataUrl: string
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer)
    metadataUrl = `${server.url}/.well-known/oauth-protected-resource/api/mcp`
  })
  afterAll(() => server?.close())

  it("answers a request without a token with 401, naming the protected resource metadata", async () => {
    const answer = await mcp(server, undefined)
    expect(answer.status).toBe(401)
    expect(answer.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}"`)
  })

  it("answers a token it did not issue with 401 invalid_token", async () => {
    for (const token of ["garbage", "a".repeat(43), "mck_not-a-key-at-all"]) {
      const answer = await mcp(server, token)
      expect(answer.status, token).toBe(401)
      expect(answer.headers.get("www-authenticate")).toBe(
        `Bearer error="invalid_token", resource_metadata="${metadataUrl}"`
      )
    }
  })

  it("takes the MCP endpoint's tokens there only: the REST API refuses them", async () => {
    const owner = await withOwner(server, "Audience org")
    const tokens = await exchange(server, await consented(server, owner.person, owner.organisation.id))
    expect(tokens.status).toBe(200)
    expect((await mcp(server, tokens.body.access_token)).status).toBe(200)
    const rest = await server.as(tokens.body.access_token).get("/me")
    expect(rest.status).toBe(401)
  })

  it("serves the protected resource metadata at the root and at the resource's path", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/mcp"]) {
      const answer = await fetch(`${server.url}${path}`)
      expect(answer.status, path).toBe(200)
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
      const metadata: any = await answer.json()
      expect(metadata).toMatchObject({
        resource: `${server.url}/api/mcp`,
        authorization_servers: [server.url],
        bearer_methods_supported: ["header"]
      })
      expect(metadata.scopes_supported).toEqual(expect.arrayContaining(["read", "write"]))
    }
  })

  it("serves the authorization server metadata (RFC 8414) for the issuer the resource names", async () => {
    const answer = await fetch(`${server.url}/.well-known/oauth-authorization-server`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
    const metadata: any = await answer.json()
    expect(metadata).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true
    })
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]))
    expect(metadata.grant_types_supported).not.toContain("implicit")
    expect(metadata.grant_types_supported).not.toContain("password")
  })
})
