/**
 * The MCP Inspector's command-line mode (`@modelcontextprotocol/inspector-cli`, the last that runs
 * on Node 20; the current Inspector needs 22) against the endpoint with an OAuth access token, as
 * an assistant sends it once connected: it lists the tools and calls a write tool; the token
 * revoked, it is refused.
 */
import { execFile } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import * as StorageMemory from "@crm/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withOwner } from "../support/people.js"
import { startServer, type TestServer } from "../support/server.js"
import { consented, exchange, formPost, mcp } from "./support.js"

const cli = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build",
  "index.js"
)

// From its own folder: it finds its package.json (its client's name and version) from the working directory.
const inspect = (server: TestServer, token: string, ...args: ReadonlyArray<string>) =>
  promisify(execFile)(
    process.execPath,
    [cli, `${server.url}/api/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${token}`, ...args],
    { cwd: dirname(cli) }
  )

describe("the MCP Inspector's command line with an OAuth token", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer(StorageMemory.layer)
  })
  afterAll(() => server?.close())

  it("lists the tools and calls a write tool, and is refused once the token is revoked", async () => {
    const owner = await withOwner(server, "Inspected")
    const connected = await consented(server, owner.person, owner.organisation.id)
    const tokens = await exchange(server, connected)
    expect(tokens.status, tokens.text).toBe(200)
    const token: string = tokens.body.access_token

    const listed = JSON.parse((await inspect(server, token, "--method", "tools/list")).stdout)
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toContain("create_contact")
    const called = JSON.parse(
      (
        await inspect(
          server,
          token,
          "--method",
          "tools/call",
          "--tool-name",
          "create_contact",
          "--tool-arg",
          "first_name=Inspector",
          "email=inspector@example.com"
        )
      ).stdout
    )
    expect(called.isError).not.toBe(true)
    expect(called.structuredContent).toMatchObject({ first_name: "Inspector", email: "inspector@example.com" })

    const revoked = await formPost(server, "/oauth/revoke", { token, client_id: connected.client.client_id })
    expect(revoked.status).toBe(200)
    await expect(inspect(server, token, "--method", "tools/list")).rejects.toThrow()
    expect((await mcp(server, token)).status).toBe(401)
  })
})
