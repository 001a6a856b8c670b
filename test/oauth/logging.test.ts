/**
 * Nothing the server logs of an authorization holds a secret: not the code, the verifier, the
 * access or refresh token, the session's cookie or CSRF token, or the password; and the MCP
 * endpoint's request line names the connected app's key, as it names a key.
 */
import * as StorageMemory from "@crm/storage-memory"
import { describe, expect, it, vi } from "vitest"
import { collector } from "../support/log.js"
import { PASSWORD, withOwner } from "../support/people.js"
import { startServer } from "../support/server.js"
import { consented, exchange, formPost, mcp, refresh } from "./support.js"

describe("the authorization's log", () => {
  it("holds no code, verifier, token, cookie or password", async () => {
    const log = collector()
    const server = await startServer(StorageMemory.layer, {
      log: { level: "debug", format: "json", output: log.output }
    })
    try {
      const owner = await withOwner(server, "Logged app")
      const connected = await consented(server, owner.person, owner.organisation.id)
      const tokens = await exchange(server, connected)
      expect(tokens.status, tokens.text).toBe(200)
      expect((await mcp(server, tokens.body.access_token)).status).toBe(200)
      // Refused ones too: a used refresh token, a garbage bearer, a replayed code (last: it ends the grant).
      const rotated = await refresh(server, connected.client, tokens.body.refresh_token)
      expect(rotated.status).toBe(200)
      expect((await refresh(server, connected.client, tokens.body.refresh_token)).status).toBe(400)
      expect((await mcp(server, "not-a-token-but-secret-looking")).status).toBe(401)
      await formPost(server, "/oauth/revoke", {
        token: rotated.body.access_token,
        client_id: connected.client.client_id
      })
      expect((await exchange(server, connected)).status).toBe(400)
      await vi.waitFor(() => expect(log.text()).toContain('"route":"/api/mcp"'))
      const lines = log.lines().map((line) => JSON.parse(line))
      const admitted = lines.find((line) => line.route === "/api/mcp" && line.status === 200)
      expect(admitted.organisation_id).toBe(owner.organisation.id)
      for (const secret of [
        connected.code,
        connected.verifier,
        tokens.body.access_token,
        tokens.body.refresh_token,
        rotated.body.access_token,
        rotated.body.refresh_token,
        "not-a-token-but-secret-looking",
        PASSWORD,
        owner.person.cookie()!.slice(12),
        owner.person.csrfToken()!
      ]) {
        expect(log.text()).not.toContain(secret)
      }
    } finally {
      await server.close()
    }
  })
})
