/**
 * Dynamic client registration (RFC 7591) as the MCP authorization server takes it: a JSON object
 * naming redirect URIs that are https, or http to the client's own machine (OAuth 2.1); every
 * client public, whatever it asks for, since PKCE is its proof and a secret it was given would be
 * kept as it was given. A refused registration names its error and issues no client.
 */

import * as StorageMemory from "@crm/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/server.js"
import { type Answer, register } from "./support.js"

const metadata = (redirects: unknown, more: Record<string, unknown> = {}) => ({
  client_name: "Test assistant",
  redirect_uris: redirects,
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  ...more
})

describe("client registration", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer)
  })
  afterAll(() => server?.close())

  /** A refusal as RFC 7591 section 3.2.2 answers it: 400, one of the error codes, and no client. */
  const refused = (answer: Answer, ...errors: ReadonlyArray<string>) => {
    expect(answer.status).toBe(400)
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
    expect(errors).toContain(answer.body.error)
    expect(answer.body).not.toHaveProperty("client_id")
    expect(answer.body).not.toHaveProperty("client_secret")
  }

  it("refuses a body that is not JSON", async () => {
    refused(await register(server, '{"redirect_uris": ["https://assistant.example/callback"]'), "invalid_request")
  })

  it("refuses JSON that is not an object", async () => {
    for (const body of ["[]", '"https://assistant.example/callback"', "null", "42"]) {
      refused(await register(server, body), "invalid_request", "invalid_client_metadata")
    }
  })

  it("refuses a client that names no redirect URI", async () => {
    const { redirect_uris: _none, ...without } = metadata([])
    refused(await register(server, without), "invalid_redirect_uri")
    refused(await register(server, metadata([])), "invalid_redirect_uri")
  })

  it("refuses a redirect over http to another machine, or one that is not a URL", async () => {
    for (const redirect of [
      "http://assistant.example/callback",
      "http://192.168.1.20:8080/callback",
      "http://127.0.0.1.assistant.example/callback",
      "not a url"
    ]) {
      refused(await register(server, metadata([redirect])), "invalid_redirect_uri")
    }
    // One bad redirect among good ones is enough.
    refused(
      await register(server, metadata(["https://assistant.example/callback", "http://assistant.example/callback"])),
      "invalid_redirect_uri"
    )
  })

  it("refuses the implicit flow, which OAuth 2.1 leaves out", async () => {
    refused(
      await register(server, metadata(["https://assistant.example/callback"], { response_types: ["token"] })),
      "invalid_client_metadata"
    )
  })

  it("registers https redirects and http ones to the client's own machine", async () => {
    for (const redirect of [
      "https://assistant.example/callback",
      "http://127.0.0.1:33418/callback",
      "http://localhost:33418/callback",
      "http://[::1]:33418/callback"
    ]) {
      const answer = await register(server, metadata([redirect]))
      expect(answer.status, `${redirect}: ${answer.text}`).toBe(201)
      expect(answer.body).toMatchObject({ redirect_uris: [redirect], token_endpoint_auth_method: "none" })
      expect(answer.body.client_id).toBeTypeOf("string")
    }
  })

  it("refuses a client asking for a secret (only public clients, as the metadata says), and issues none", async () => {
    const discovered = await fetch(`${server.url}/.well-known/oauth-authorization-server`).then(
      (response) => response.json() as Promise<{ token_endpoint_auth_methods_supported: ReadonlyArray<string> }>
    )
    expect(discovered.token_endpoint_auth_methods_supported).toEqual(["none"])
    for (const method of ["client_secret_post", "client_secret_basic", "private_key_jwt"]) {
      const answer = await register(
        server,
        metadata(["https://assistant.example/callback"], { token_endpoint_auth_method: method })
      )
      expect(answer.status).toBe(400)
      expect(answer.body.error).toBe("invalid_client_metadata")
      expect(answer.body).not.toHaveProperty("client_id")
      expect(answer.body).not.toHaveProperty("client_secret")
    }
    const none = await register(
      server,
      metadata(["https://assistant.example/callback"], { token_endpoint_auth_method: "none" })
    )
    expect(none.status).toBe(201)
    expect(none.body).not.toHaveProperty("client_secret")
  })
})
