/**
 * The token endpoint's refusals (RFC 6749 5.2, RFC 7636 4.6, OAuth 2.1): a code is the client's
 * that asked for it, redeemed once, with its PKCE verifier, before it lapses; a refresh token
 * rotates, and one used twice ends the grant; revocation (RFC 7009) ends what it is given. A
 * refusal issues no token, and a token that ended is refused at the MCP endpoint with the
 * challenge that tells the client to authorize again.
 */

import { createHash } from "node:crypto"
import { Access } from "@crm/core"
import * as StorageMemory from "@crm/storage-memory"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withOwner } from "../support/people.js"
import { startServer, type TestServer } from "../support/server.js"
import { type Answer, type Connected, consented, exchange, formPost, mcp, refresh, registered } from "./support.js"

describe("tokens", () => {
  let server: TestServer
  let owner: Awaited<ReturnType<typeof withOwner>>
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer)
    owner = await withOwner(server, "Tokens' org")
  })
  afterAll(() => server?.close())

  const connect = (scopes: ReadonlyArray<string> = ["read", "write"]) =>
    consented(server, owner.person, owner.organisation.id, { scopes })

  /** The tokens of a code, exchanged as its client does. */
  const tokensOf = async (connected: Connected) => {
    const answer = await exchange(server, connected)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.access_token).toBeTypeOf("string")
    expect(answer.body.refresh_token).toBeTypeOf("string")
    return answer.body as { access_token: string; refresh_token: string; scope: string }
  }

  /** A token endpoint refusal: its status and error code, and no token in it. */
  const refused = (answer: Answer, error: string, status = 400) => {
    expect(answer.status).toBe(status)
    expect(answer.body.error).toBe(error)
    expect(answer.body).not.toHaveProperty("access_token")
    expect(answer.body).not.toHaveProperty("refresh_token")
    expect(answer.headers.get("cache-control")).toBe("no-store")
  }

  const works = async (accessToken: string) => {
    const answer = await mcp(server, accessToken)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.result.tools.length).toBeGreaterThan(0)
  }

  /** Refused at the MCP endpoint as RFC 6750 and RFC 9728 say: 401, naming the metadata to start again from. */
  const ended = async (accessToken: string) => {
    const answer = await mcp(server, accessToken)
    expect(answer.status).toBe(401)
    expect(answer.headers.get("www-authenticate")).toBe(
      `Bearer error="invalid_token", resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/mcp"`
    )
  }

  /** The client's connected app as the organisation's settings list it, once the grant ended. */
  const revokedInSettings = async (clientId: string) => {
    const apps = await owner.person.settings(owner.organisation.id).get("/apps")
    const app = apps.body.data.find((listed: { client_id: string }) => listed.client_id === clientId)
    expect(app?.revoked_at).toBeTypeOf("string")
  }

  describe("the authorization code", () => {
    it("is refused with a wrong PKCE verifier, or none", async () => {
      const connected = await connect()
      refused(await exchange(server, connected, { code_verifier: "w".repeat(43) }), "invalid_grant")
      const { code_verifier: _verifier, ...without } = {
        grant_type: "authorization_code",
        code: connected.code,
        redirect_uri: connected.client.redirect,
        code_verifier: connected.verifier,
        client_id: connected.client.client_id
      }
      refused(await formPost(server, "/oauth/token", without), "invalid_grant")
    })

    it("is used up by an attempt that failed", async () => {
      const connected = await connect()
      refused(await exchange(server, connected, { code_verifier: "w".repeat(43) }), "invalid_grant")
      // Single-use (RFC 6749 10.5: "multiple attempts to exchange"): whoever tried it first without
      // the verifier, the code is spent, and its client starts again.
      refused(await exchange(server, connected), "invalid_grant")
    })

    it("is refused a second time, and what it gave the first time is revoked", async () => {
      const connected = await connect()
      const first = await tokensOf(connected)
      await works(first.access_token)
      refused(await exchange(server, connected), "invalid_grant")
      await ended(first.access_token)
      refused(await refresh(server, connected.client, first.refresh_token), "invalid_grant")
      await revokedInSettings(connected.client.client_id)
    })

    it("is refused once it lapsed", async () => {
      const connected = await connect()
      // Stored under its hash, as every code is: lapsed a second ago.
      const id = createHash("sha256").update(connected.code).digest("base64url")
      await server.run(
        Effect.flatMap(Access.OAuthStore, (store) =>
          Effect.flatMap(store.find("AuthorizationCode", id, new Date().toISOString()), (found) =>
            store.upsert({
              ...Option.getOrThrowWith(found, () => new Error("no code stored under its hash")),
              expires_at: new Date(Date.now() - 1000).toISOString()
            })
          )
        )
      )
      refused(await exchange(server, connected), "invalid_grant")
    })

    it("is refused to another client", async () => {
      const connected = await connect()
      const other = await registered(server, "Another assistant")
      refused(await exchange(server, connected, { client_id: other.client_id }), "invalid_grant")
    })

    it("is refused with another redirect than the authorization request's", async () => {
      const connected = await connect()
      refused(await exchange(server, connected, { redirect_uri: "http://127.0.0.1:9/elsewhere" }), "invalid_grant")
    })

    it("is refused for a grant type the server does not have", async () => {
      const connected = await connect()
      for (const grantType of ["password", "client_credentials", "urn:example:made-up"]) {
        refused(await exchange(server, connected, { grant_type: grantType }), "unsupported_grant_type")
      }
    })
  })

  describe("the refresh token", () => {
    it("rotates, and used again ends the grant: its newest tokens too", async () => {
      const connected = await connect()
      const first = await tokensOf(connected)
      const renewed = await refresh(server, connected.client, first.refresh_token)
      expect(renewed.status, renewed.text).toBe(200)
      expect(renewed.body.refresh_token).toBeTypeOf("string")
      expect(renewed.body.refresh_token).not.toBe(first.refresh_token)
      await works(renewed.body.access_token)

      refused(await refresh(server, connected.client, first.refresh_token), "invalid_grant")
      await ended(renewed.body.access_token)
      refused(await refresh(server, connected.client, renewed.body.refresh_token), "invalid_grant")
      await revokedInSettings(connected.client.client_id)
    })

    it("is refused scopes beyond its grant", async () => {
      const connected = await connect(["read"])
      const tokens = await tokensOf(connected)
      expect(tokens.scope).toBe("read")
      for (const scope of ["read write", "write", "quotes:write"]) {
        refused(await refresh(server, connected.client, tokens.refresh_token, { scope }), "invalid_scope")
      }
      // Narrower is what it was given.
      const same = await refresh(server, connected.client, tokens.refresh_token, { scope: "read" })
      expect(same.status, same.text).toBe(200)
      expect(same.body.scope).toBe("read")
    })

    it("is refused to another client", async () => {
      const connected = await connect()
      const tokens = await tokensOf(connected)
      const other = await registered(server, "Another assistant")
      refused(await refresh(server, other, tokens.refresh_token), "invalid_grant")
    })
  })

  describe("revocation", () => {
    const revoke = (fields: Record<string, string>) => formPost(server, "/oauth/revoke", fields)

    it("ends an access token: the MCP endpoint refuses it with the challenge", async () => {
      const connected = await connect()
      const tokens = await tokensOf(connected)
      await works(tokens.access_token)
      const answer = await revoke({ token: tokens.access_token, client_id: connected.client.client_id })
      expect(answer.status).toBe(200)
      await ended(tokens.access_token)
    })

    it("ends a refresh token, and the access tokens of its grant", async () => {
      const connected = await connect()
      const tokens = await tokensOf(connected)
      const answer = await revoke({
        token: tokens.refresh_token,
        token_type_hint: "refresh_token",
        client_id: connected.client.client_id
      })
      expect(answer.status).toBe(200)
      refused(await refresh(server, connected.client, tokens.refresh_token), "invalid_grant")
      await ended(tokens.access_token)
      await revokedInSettings(connected.client.client_id)
    })

    it("answers 200 for a token it does not know", async () => {
      const client = await registered(server)
      expect((await revoke({ token: "no-such-token", client_id: client.client_id })).status).toBe(200)
    })

    it("refuses a request that names no token", async () => {
      const client = await registered(server)
      const answer = await revoke({ client_id: client.client_id })
      expect(answer.status).toBe(400)
      expect(answer.body.error).toBe("invalid_request")
    })

    it("does not end a token for a client it was not issued to", async () => {
      const connected = await connect()
      const tokens = await tokensOf(connected)
      const other = await registered(server, "Another assistant")
      // RFC 7009 2.1: the server checks the token was issued to the client asking.
      await revoke({ token: tokens.access_token, client_id: other.client_id })
      await revoke({ token: tokens.refresh_token, client_id: other.client_id })
      await works(tokens.access_token)
      const renewed = await refresh(server, connected.client, tokens.refresh_token)
      expect(renewed.status, renewed.text).toBe(200)
    })
  })
})
