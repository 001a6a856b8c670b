/**
 * Issue 37 end to end, as an assistant connects: the MCP SDK's own client meets a 401, discovers
 * the authorization server from the protected resource metadata, registers itself, sends the
 * person to sign in and consent (Chromium), exchanges the code, and calls tools with the token;
 * then the person revokes the app in the settings and the next call is refused.
 */

import * as StorageMemory from "@crm/storage-memory"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Browser, launch, NO_CHROMIUM, screenshot } from "../support/browser.js"
import { PASSWORD, withOwner } from "../support/people.js"
import { startServer, type TestServer } from "../support/server.js"
import { Assistant, type Callback, callbackServer } from "./support.js"

const connect = async (server: TestServer, assistant: Assistant) => {
  const client = new Client({ name: "test-assistant", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { authProvider: assistant }))
  return client
}

describe.skipIf(NO_CHROMIUM !== undefined)(
  `an assistant connects through OAuth${NO_CHROMIUM ? ` (${NO_CHROMIUM})` : ""}`,
  () => {
    let server: TestServer
    let browser: Browser
    let callback: Callback

    beforeAll(async () => {
      server = await startServer(StorageMemory.layer)
      browser = await launch()
      callback = await callbackServer()
    })
    afterAll(async () => {
      await callback?.close()
      await browser?.close()
      await server?.close()
    })

    it("registers, signs in, consents, calls tools, and is refused once revoked", async () => {
      const owner = await withOwner(server, "Assistants' org")
      const assistant = new Assistant(callback.url)

      // 1. No token: the SDK meets the 401, discovers, registers and sends the person to authorize.
      await expect(connect(server, assistant)).rejects.toBeInstanceOf(UnauthorizedError)
      expect(assistant.client?.client_id).toBeTypeOf("string")
      const authorization = assistant.authorizationUrl!
      expect(authorization.origin).toBe(new URL(server.url).origin)
      expect(authorization.searchParams.get("code_challenge_method")).toBe("S256")
      expect(authorization.searchParams.get("resource")).toBe(`${server.url}/api/mcp`)

      // 2. The person, in a browser signed in to nothing, signs in and consents.
      const page = await browser.page()
      await page.goto(authorization.href)
      expect(await page.textContent("h1")).toBe("Sign in to connect an app")
      expect(await page.textContent("dl")).toContain("Test assistant")
      await page.fill("input[name=email]", owner.email)
      await page.fill("input[name=password]", PASSWORD)
      await page.click("button[type=submit]")
      expect(await page.textContent("h1")).toBe("Connect Test assistant to your CRM")
      await page.selectOption("select[name=organisation]", owner.organisation.id)
      await screenshot(page, "oauth-consent")
      const answered = callback.next()
      await page.click("button[value=allow]")
      const query = await answered
      expect(query.get("error")).toBeNull()
      const code = query.get("code")!
      expect(code).toBeTypeOf("string")

      // 3. The code for tokens, then the MCP session with them.
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { authProvider: assistant })
      await transport.finishAuth(code)
      expect(assistant.saved?.access_token).toBeTypeOf("string")
      expect(assistant.saved?.refresh_token).toBeTypeOf("string")
      expect(assistant.saved?.scope?.split(" ").sort()).toEqual(["read", "write"])
      const client = await connect(server, assistant)
      const tools = await client.listTools()
      expect(tools.tools.map((tool) => tool.name)).toContain("create_contact")
      const created = await client.callTool({
        name: "create_contact",
        arguments: { first_name: "Ada", email: "ada@example.com" }
      })
      expect(created.isError).not.toBe(true)

      // What it did is the person's organisation's, through the app's key.
      const apps = await owner.person.settings(owner.organisation.id).get("/apps")
      expect(apps.status).toBe(200)
      expect(apps.body.data).toHaveLength(1)
      expect(apps.body.data[0]).toMatchObject({
        client_id: assistant.client!.client_id,
        client_name: "Test assistant",
        scopes: ["read", "write"],
        created_by: owner.userId,
        revoked_at: null
      })

      // 4. Revoked in the settings screen, by the person in the browser they consented in (the
      // consent screen signed them in to the CRM): the next call is refused, and so is a refresh.
      page.on("dialog", (dialog) => void dialog.accept())
      await page.goto(`${server.url}/settings`)
      await page.locator("#console").waitFor({ state: "visible" })
      await page.getByRole("navigation", { name: "Settings" }).getByRole("button", { name: "Connected apps" }).click()
      const row = page.locator(`#app-table tbody tr[data-app-id="${apps.body.data[0].id}"]`)
      await row.waitFor()
      expect(await row.locator("td").nth(2).innerText()).not.toBe("Never")
      await row.getByRole("button", { name: "Revoke Test assistant" }).click()
      await expect.poll(() => row.locator("td").nth(3).innerText()).toMatch(/^Revoked\n/)
      await screenshot(page, "oauth-connected-app-revoked")
      const refused = await fetch(`${server.url}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${assistant.saved!.access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream"
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      })
      expect(refused.status).toBe(401)
      expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"')
      await expect(client.callTool({ name: "search_contacts", arguments: { q: "Ada" } })).rejects.toThrow()
      const refresh = await fetch(`${server.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: assistant.saved!.refresh_token!,
          client_id: assistant.client!.client_id
        })
      })
      expect(refresh.status).toBe(400)
      expect(((await refresh.json()) as { error: string }).error).toBe("invalid_grant")
    })

    it("answers a tool call beyond the token's scopes with 403 insufficient_scope, naming the scope to ask for", async () => {
      const owner = await withOwner(server, "Step-up org")
      const assistant = new Assistant(callback.url, "Reader")
      await expect(connect(server, assistant)).rejects.toBeInstanceOf(UnauthorizedError)
      // Another person: the browser forgets whoever signed in before.
      await browser.context.clearCookies()
      const page = await browser.page()
      await page.goto(assistant.authorizationUrl!.href)
      await page.fill("input[name=email]", owner.email)
      await page.fill("input[name=password]", PASSWORD)
      await page.click("button[type=submit]")
      await page.selectOption("select[name=organisation]", owner.organisation.id)
      await page.uncheck("input[value=write]")
      const answered = callback.next()
      await page.click("button[value=allow]")
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { authProvider: assistant })
      const query = await answered
      expect(query.get("error"), query.get("error_description") ?? "").toBeNull()
      await transport.finishAuth(query.get("code")!)
      expect(assistant.saved?.scope).toBe("read")
      const call = (name: string, args: object) =>
        fetch(`${server.url}/api/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${assistant.saved!.access_token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream"
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })
        })
      const write = await call("create_contact", { first_name: "Grace" })
      expect(write.status).toBe(403)
      expect(write.headers.get("www-authenticate")).toMatch(
        /^Bearer error="insufficient_scope", scope="read write", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/api\/mcp"$/
      )
      const read = await call("search_contacts", { q: "Grace" })
      expect(read.status).toBe(200)
      const { result } = (await read.json()) as { result: { isError?: boolean } }
      expect(result.isError, JSON.stringify(result)).not.toBe(true)
    })
  }
)
