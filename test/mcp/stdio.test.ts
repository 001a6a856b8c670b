/**
 * `examples/mcp-stdio` as a desktop assistant runs it: a child process spoken to over stdio with
 * the SDK's client, in remote mode (bridged to a test server's /api/mcp) and in local mode (on a
 * PGlite data directory prepared here, from the run's migrated template, with an organisation and
 * a key, then closed, since PGlite is single-process).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Access, Kernel, Settings } from "@crm/core"
import * as StoragePg from "@crm/storage-pg"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { callTool } from "../support/mcp.js"
import { startServer, type TestServer } from "../support/server.js"
import { bundled } from "../support/sources.js"
import { memory, pgliteTemplate } from "../support/storages.js"

const root = join(import.meta.dirname, "../..")

/** The example bundled from its sources, once for the file. */
let main: Promise<string> | undefined
const built = () => (main ??= bundled("examples/mcp-stdio", { main: "src/main.ts" }).then((entries) => entries.main))

const childEnv = (env: Record<string, string>): Record<string, string> => {
  const base: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !["CRM_URL", "CRM_API_KEY", "DATABASE_URL", "CRM_DATA_DIR"].includes(name)) {
      base[name] = value
    }
  }
  return { ...base, ...env }
}

const stdioClient = async (env: Record<string, string>) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [await built()],
    cwd: root,
    env: childEnv(env),
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const client = new Client({ name: "stdio-test", version: "0.0.0" })
  await client.connect(transport)
  return { client, stderr: () => stderr }
}

/** Runs the example to its end (a refused start) and returns its exit code and stderr. */
const runToExit = async (env: Record<string, string>) => {
  const program = await built()
  return new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, [program], {
      cwd: root,
      env: childEnv(env)
    })
    let stderr = ""
    let stdout = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.on("close", (code) => resolve({ code, stderr, stdout }))
  })
}

describe("mcp-stdio, remote mode", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer(memory.fresh())
  })
  afterAll(async () => {
    await server?.close()
  })

  it("bridges stdio to the server's /api/mcp with the key", async () => {
    const { key } = await server.tenant({ scopes: ["read"] })
    const { client, stderr } = await stdioClient({ CRM_URL: server.url, CRM_API_KEY: key })
    expect(client.getServerVersion()?.name).toBe("crm-kernel")
    const listed = await client.listTools()
    expect(listed.tools.length).toBeGreaterThan(0)
    const first = listed.tools.find((entry) => entry.name === "list_record_types")
    if (first !== undefined) {
      expect(await callTool(client, "list_record_types", {})).toEqual({
        isError: false,
        value: { items: [], has_more: false }
      })
    }
    const writer = listed.tools.find((entry) => entry.annotations?.readOnlyHint === false)
    if (writer !== undefined) {
      expect((await callTool(client, writer.name, {})).value.error).toBe("missing_scope:write")
    }
    // Each tool call over the bridge is one HTTP request: one unit of the key's budget.
    const me = await server.as(key).get("/me")
    expect(Number(me.headers.get("x-ratelimit-remaining"))).toBeLessThan(120)
    await client.close()
    // Closing its stdin ends the session (MCP's stdio shutdown): the bridge stops by itself.
    expect(stderr()).toContain("the assistant closed stdin; stopping")
  }, 30_000)

  it("answers requests with an error naming the refusal when the key is bad", async () => {
    // The initialize request itself is answered with a JSON-RPC error carrying the server's 401 body.
    const refused = await stdioClient({ CRM_URL: server.url, CRM_API_KEY: "mck_wrong" }).then(
      () => undefined,
      (error: unknown) => String(error)
    )
    expect(refused).toContain("invalid_api_key")
  }, 30_000)
})

describe("mcp-stdio, local mode", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "crm-mcp-stdio-"))
  let key = ""
  let readOnlyKey = ""

  beforeAll(async () => {
    const setup = Effect.gen(function* () {
      const access = yield* Access.Access
      const organisation = yield* access.createOrganisation(Settings.OrganisationCreate.parse({ name: "Stdio org" }))
      const writer = yield* access.createKey(
        organisation.id,
        Access.KeyCreate.parse({ name: "stdio", scopes: ["read", "write"] })
      )
      const reader = yield* access.createKey(organisation.id, Access.KeyCreate.parse({ scopes: ["read"] }))
      return { writer: writer.key, reader: reader.key }
    })
    const keys = await Effect.runPromise(
      Effect.scoped(
        Effect.provide(
          setup,
          Kernel.layerWith({ rateLimit: 120 }).pipe(
            Layer.provideMerge(StoragePg.layerPglite({ dataDir, loadDataDir: await pgliteTemplate() }))
          )
        )
      )
    )
    key = keys.writer
    readOnlyKey = keys.reader
  }, 60_000)

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("refuses to start with a clear message on a bad key", async () => {
    const result = await runToExit({ CRM_API_KEY: "mck_not_a_key", CRM_DATA_DIR: dataDir })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("CRM_API_KEY was refused (invalid_api_key)")
    expect(result.stdout).toBe("")
  }, 60_000)

  it("serves the tools on the local store with the key's scopes", async () => {
    const { client, stderr } = await stdioClient({
      CRM_API_KEY: readOnlyKey,
      CRM_DATA_DIR: dataDir,
      CRM_RATE_LIMIT: "3"
    })
    expect(client.getServerVersion()?.name).toBe("crm-kernel")
    const listed = await client.listTools()
    expect(listed.tools.length).toBeGreaterThan(0)
    const reader = listed.tools.find((entry) => entry.name === "list_record_types")
    const writer = listed.tools.find((entry) => entry.annotations?.readOnlyHint === false)
    if (reader !== undefined && writer !== undefined) {
      expect(await callTool(client, "list_record_types", {})).toEqual({
        isError: false,
        value: { items: [], has_more: false }
      })
      expect((await callTool(client, writer.name, {})).value.error).toBe("missing_scope:write")
      expect((await callTool(client, "list_record_types", {})).isError).toBe(false)
      // Every tool call spends one unit: the fourth in a minute is over the budget of three.
      expect((await callTool(client, "list_record_types", {})).value.error).toBe("rate_limited")
    }
    await client.close()
    expect(stderr()).toContain("serving the CRM of")
    expect(stderr()).toContain("Stdio org")
    // It stops when the assistant closes its stdin, rather than waiting to be killed with PGlite open.
    expect(stderr()).toContain("the assistant closed stdin; stopping")
  }, 60_000)

  it("lets a read-write key write", async () => {
    const { client } = await stdioClient({ CRM_API_KEY: key, CRM_DATA_DIR: dataDir })
    const listed = await client.listTools()
    if (listed.tools.some((entry) => entry.name === "create_contact")) {
      const created = await callTool(client, "create_contact", { first_name: "Stdio" })
      expect(created.isError).toBe(false)
    }
    await client.close()
  }, 60_000)
})
