/**
 * A connected app is a key of its person's: its tokens spend the key's budget, meet the
 * organisation's plan as a key does, and stop working when their person leaves the organisation.
 */

import * as StorageMemory from "@crm/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { join, withOwner } from "../support/people.js"
import { startServer, type TestServer } from "../support/server.js"
import { type Answer, consented, exchange, mcp, refresh } from "./support.js"

/** A tool's error as the MCP endpoint answers it: the `{error, detail}` in its text. */
const toolError = (answer: Answer) => {
  expect(answer.status, answer.text).toBe(200)
  expect(answer.body.result.isError).toBe(true)
  return JSON.parse(answer.body.result.content[0].text)
}

describe("a connected app within its limits", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer, { rateLimit: 3 })
  })
  afterAll(() => server?.close())

  const connect = async (person: Parameters<typeof consented>[1], organisationId: string) => {
    const connected = await consented(server, person, organisationId)
    const tokens = await exchange(server, connected)
    expect(tokens.status, tokens.text).toBe(200)
    return { client: connected.client, ...(tokens.body as { access_token: string; refresh_token: string }) }
  }

  it("spends the app's budget: over the rate limit it is answered 429", async () => {
    const owner = await withOwner(server, "Budget org")
    const { access_token } = await connect(owner.person, owner.organisation.id)
    for (let call = 1; call <= 3; call++) expect((await mcp(server, access_token)).status, `call ${call}`).toBe(200)
    const over = await mcp(server, access_token)
    expect(over.status).toBe(429)
    expect(over.body.error).toBe("rate_limited")
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0)
  })

  it("writes nothing on a read-only plan, and still reads", async () => {
    const owner = await withOwner(server, "Frozen org")
    const { access_token } = await connect(owner.person, owner.organisation.id)
    const settings = owner.organisation.settings
    const frozen = await server.admin.put(`/organisations/${owner.organisation.id}/settings`, {
      ...settings,
      plan: { ...settings.plan, read_only: true }
    })
    expect(frozen.status, frozen.text).toBe(200)
    const written = await mcp(server, access_token, "tools/call", {
      name: "create_contact",
      arguments: { first_name: "Ada" }
    })
    expect(toolError(written)).toMatchObject({ error: "plan_refused", detail: "READ_ONLY" })
    const read = await mcp(server, access_token, "tools/call", { name: "search_contacts", arguments: { q: "Ada" } })
    expect(read.status).toBe(200)
    expect(read.body.result.isError, read.text).not.toBe(true)
    expect(read.body.result.structuredContent.items).toEqual([])
  })

  it("stops working when its person is removed from the organisation", async () => {
    const owner = await withOwner(server, "Leavers' org")
    const member = await join(server, owner.organisation.id, "member")
    const tokens = await connect(member.person, owner.organisation.id)
    expect((await mcp(server, tokens.access_token)).status).toBe(200)

    const removed = await owner.person.settings(owner.organisation.id).delete(`/users/${member.userId}`)
    expect(removed.status, removed.text).toBe(204)
    const refused = await mcp(server, tokens.access_token)
    expect(refused.status).toBe(401)
    expect(refused.headers.get("www-authenticate")).toBe(
      `Bearer error="invalid_token", resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/mcp"`
    )
    const renewed = await refresh(server, tokens.client, tokens.refresh_token)
    expect(renewed.status).toBe(400)
    expect(renewed.body.error).toBe("invalid_grant")
  })
})
