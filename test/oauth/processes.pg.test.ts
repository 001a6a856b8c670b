/**
 * The authorization server on several processes of one database: each step of a flow may reach
 * another process (the consent on one, the code redeemed at another, the token used at a third),
 * and a connected app revoked at one is refused at once by every other.
 */
import { expect, it } from "vitest"
import { withOwner } from "../support/people.js"
import { describeOnServer } from "../support/pgServer.js"
import { twoProcesses } from "../support/processes.js"
import { consented, exchange, mcp, refresh } from "./support.js"

/** Where both processes are served, as CRM_PUBLIC_URL names it for every process behind one balancer. */
const PUBLIC_URL = "http://crm.test"

describeOnServer("OAuth on several processes", () => {
  const { a, b } = twoProcesses({ publicUrl: PUBLIC_URL })

  it("consents on one process, redeems and refreshes on the other, and is refused on both once revoked on one", async () => {
    const owner = await withOwner(a(), "Two processes, one app")
    const connected = await consented(a(), owner.person, owner.organisation.id, {
      query: { resource: `${PUBLIC_URL}/api/mcp` }
    })
    // The code was issued by a; b redeems it, as a load balancer may send it there.
    const tokens = await exchange(b(), connected)
    expect(tokens.status, tokens.text).toBe(200)
    const token: string = tokens.body.access_token
    for (let n = 0; n < 3; n++) {
      expect((await mcp(a(), token)).status).toBe(200)
      expect((await mcp(b(), token)).status).toBe(200)
    }
    const refreshed = await refresh(a(), connected.client, tokens.body.refresh_token)
    expect(refreshed.status, refreshed.text).toBe(200)
    const fresh: string = refreshed.body.access_token
    expect((await mcp(b(), fresh)).status).toBe(200)

    const apps = await owner.person.settings(owner.organisation.id).get("/apps")
    const revoked = await owner.person.settings(owner.organisation.id).delete(`/apps/${apps.body.data[0].id}`)
    expect(revoked.status, revoked.text).toBe(204)
    // No wait: the revocation returned once every process had let go of the app.
    for (const server of [b(), a()]) {
      for (const each of [token, fresh]) {
        const refused = await mcp(server, each)
        expect(refused.status).toBe(401)
        expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"')
      }
    }
    const again = await refresh(b(), connected.client, refreshed.body.refresh_token)
    expect(again.status).toBe(400)
    expect(again.body.error).toBe("invalid_grant")
  })
})
