/**
 * The MCP transport: the protocol handshake and listing over Streamable HTTP at `/api/mcp`, the
 * REST pipeline's authentication and budget in front of it, and the call pipeline (scope, plan,
 * validation, errors, the client's check of a result against the listed output schema) — the last
 * with test-only tools served over an in-memory transport on the test server's own kernel.
 */
import { Access, Errors, type Kernel } from "@crm/core"
import { CREATES, limitInput, McpServer, READ_ONLY, tool, tools } from "@crm/mcp"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { callTool, mcpClient } from "../support/mcp.js"
import { checkedFetch } from "../support/responseCheck.js"
import type { TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw-test", version: "0.0.0" }
  }
}

const post = (server: TestServer, headers: Record<string, string>, body: unknown = initialize) =>
  checkedFetch(`${server.url}/api/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers
    },
    body: JSON.stringify(body)
  })

const json = (response: Response): Promise<any> => response.json()

/** Test-only tools exercising every branch of the call pipeline. */
const testTools = [
  tool({
    name: "echo",
    title: "Echo",
    description: "Returns its text, the clamped limit and the caller's organisation.",
    scope: "read",
    annotations: READ_ONLY,
    input: z.strictObject({ text: z.string().min(1), limit: limitInput(5) }),
    output: z.object({
      text: z.string(),
      limit: z.number().int(),
      organisation: z.uuid(),
      actor: z.object({ keyId: z.uuid() })
    }),
    run: (input, { principal, actor }) =>
      Effect.succeed({ text: input.text, limit: input.limit, organisation: principal.organisation.id, actor })
  }),
  tool({
    name: "write_something",
    title: "Write something",
    description: "A write tool that writes nothing.",
    scope: "write",
    annotations: CREATES,
    input: z.object({}),
    output: z.object({ written: z.boolean() }),
    run: () => Effect.succeed({ written: true })
  }),
  tool({
    name: "missing",
    title: "Missing",
    description: "Always fails with not_found.",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object({}),
    output: z.object({}),
    run: () => Effect.fail(new Errors.NotFound({ detail: "no such thing" }))
  }),
  tool({
    name: "crash",
    title: "Crash",
    description: "Always dies.",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object({}),
    output: z.object({}),
    run: () => Effect.die(new Error("secret internals"))
  }),
  tool({
    name: "undeclared",
    title: "Undeclared",
    description: "Answers a field its output schema does not name.",
    scope: "read",
    annotations: READ_ONLY,
    input: z.object({}),
    output: z.object({ id: z.uuid() }),
    // A value wider than the declared shape compiles; only the listed schema can refuse it.
    run: () => {
      const answer = { id: crypto.randomUUID(), note: "not in the output schema" }
      return Effect.succeed(answer)
    }
  })
]

const inMemoryClient = async (server: TestServer, key: string, beforeCall?: McpServer.Session["beforeCall"]) => {
  const runtime = await server.run(Effect.runtime<Kernel.Services>())
  const principal = await server.run(Effect.flatMap(Access.Access, (access) => access.authenticate(key, "127.0.0.1")))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await McpServer.make(testTools).connect(
    serverSide,
    { principal, ...(beforeCall === undefined ? {} : { beforeCall }) },
    runtime
  )
  const client = new Client({ name: "in-memory", version: "0.0.0" })
  await client.connect(clientSide)
  // As `mcpClient`: the listing gives the client each tool's output schema to check results against.
  await client.listTools()
  return client
}

describe("tool list", () => {
  it("names every tool once", () => {
    expect(new Set(tools.map((entry) => entry.name)).size).toBe(tools.length)
    expect(() => McpServer.make([testTools[0]!, testTools[0]!])).toThrow(/duplicate MCP tool name: echo/)
  })

  it("lists object input schemas built from the zod inputs, as the caller writes them", () => {
    const echo = McpServer.describeTool(testTools[0]!)
    expect(echo.inputSchema.type).toBe("object")
    expect(echo.inputSchema).not.toHaveProperty("$schema")
    expect(echo.inputSchema.required).toEqual(["text"])
    expect(echo.annotations).toEqual({
      title: "Echo",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    })
    for (const entry of tools) expect(McpServer.describeTool(entry).inputSchema.type).toBe("object")
  })

  it("lists object output schemas built from the zod outputs, as the result's JSON carries it", () => {
    const echo = McpServer.describeTool(testTools[0]!)
    expect(echo.outputSchema?.type).toBe("object")
    expect(echo.outputSchema).not.toHaveProperty("$schema")
    expect(echo.outputSchema?.required).toEqual(["text", "limit", "organisation", "actor"])
    expect(echo.outputSchema?.additionalProperties).toBe(false)
    for (const entry of tools) {
      expect(McpServer.describeTool(entry).outputSchema?.type, entry.name).toBe("object")
      // Nothing JSON cannot carry (a Date, a bigint): such a schema would throw rather than be listed as `{}`.
      expect(() => z.toJSONSchema(entry.output, { io: "output" }), entry.name).not.toThrow()
    }
  })
})

onEveryStore("MCP transport", (server) => {
  it("initializes with protocol 2025-11-25 and names the server", async () => {
    expect(LATEST_PROTOCOL_VERSION).toBe("2025-11-25")
    const { key } = await server().tenant({ scopes: ["read"] })
    const response = await post(server(), { authorization: `Bearer ${key}` })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-request-id")).toBeTruthy()
    const body = await json(response)
    expect(body.result.protocolVersion).toBe("2025-11-25")
    expect(body.result.serverInfo.name).toBe(McpServer.SERVER_NAME)
    expect(body.result.instructions).toContain("search")
    expect(body.result.capabilities.tools).toBeDefined()

    const client = await mcpClient(server(), key)
    expect(client.getServerVersion()?.name).toBe("crm-kernel")
    expect(client.getInstructions()).toContain("fetch")
    await client.close()
  })

  it("lists every tool to a read-only key, with annotations and object input schemas", async () => {
    const { key } = await server().tenant({ scopes: ["read"] })
    const client = await mcpClient(server(), key)
    const listed = await client.listTools()
    expect(listed.tools.map((entry) => entry.name).sort()).toEqual(tools.map((entry) => entry.name).sort())
    for (const entry of listed.tools) {
      const source = tools.find((candidate) => candidate.name === entry.name)!
      expect(entry.inputSchema.type).toBe("object")
      expect(entry.outputSchema?.type).toBe("object")
      expect(entry.title).toBe(source.title)
      expect(entry.description).toBe(source.description)
      expect(entry.annotations).toEqual({
        title: source.title,
        ...source.annotations,
        openWorldHint: false
      })
    }
    await client.close()
  })

  it("refuses missing, invalid and expired keys with the REST 401 bodies", async () => {
    const missing = await post(server(), {})
    expect(missing.status).toBe(401)
    expect((await json(missing)).error).toBe("missing_bearer_token")

    const invalid = await post(server(), { authorization: `Bearer mck_${"0".repeat(49)}` })
    expect(invalid.status).toBe(401)
    const invalidBody = await json(invalid)
    expect(invalidBody.error).toBe("invalid_api_key")
    expect(typeof invalidBody.request_id).toBe("string")

    const { organisation } = await server().tenant()
    const expired = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      scopes: ["read"],
      expires_at: new Date(Date.now() - 1000).toISOString()
    })
    const refused = await post(server(), { authorization: `Bearer ${expired.body.key}` })
    expect(refused.status).toBe(401)
    expect((await json(refused)).error).toBe("expired_api_key")
  })

  it("spends one budget unit per HTTP request and answers 429 when it is spent", async () => {
    const { key, client } = await server().tenant({ scopes: ["read"] })
    const before = (await client.get("/me")).headers.get("x-ratelimit-remaining")
    const first = await post(server(), { authorization: `Bearer ${key}` })
    expect(first.status).toBe(200)
    expect(first.headers.get("x-ratelimit-limit")).toBe("120")
    const remaining = Number(first.headers.get("x-ratelimit-remaining"))
    expect(remaining).toBe(Number(before) - 1)
    const second = await post(server(), { authorization: `Bearer ${key}` })
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1)
    expect((await client.get("/me")).headers.get("x-ratelimit-remaining")).toBe(String(remaining - 1))

    // Spend the rest with cheap requests (a ping), then the next one is refused.
    const ping = { jsonrpc: "2.0", id: 2, method: "ping" }
    for (let i = 0; i < remaining - 1; i++) {
      const response = await post(server(), { authorization: `Bearer ${key}` }, ping)
      expect(response.status).toBe(200)
      await response.text()
    }
    const limited = await post(server(), { authorization: `Bearer ${key}` }, ping)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect((await json(limited)).error).toBe("rate_limited")
  })

  it("refuses a body declared larger than 1 MiB with 413", async () => {
    const { key } = await server().tenant({ scopes: ["read"] })
    const big = { ...initialize, params: { ...initialize.params, padding: "x".repeat(1024 * 1024) } }
    const response = await post(server(), { authorization: `Bearer ${key}` }, big)
    expect(response.status).toBe(413)
    expect((await json(response)).error).toBe("payload_too_large")
  })

  it("refuses GET (no server stream in stateless mode)", async () => {
    const { key } = await server().tenant({ scopes: ["read"] })
    const response = await checkedFetch(`${server().url}/api/mcp`, {
      headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" }
    })
    expect(response.status).toBe(405)
  })

  it("answers an unknown tool with a protocol error", async () => {
    const { key } = await server().tenant({ scopes: ["read"] })
    const client = await mcpClient(server(), key)
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/unknown tool/)
    await client.close()
  })

  it("answers arguments that are not an object (null, an array) with invalid params, not an internal error", async () => {
    const { key } = await server().tenant({ scopes: ["read"] })
    const client = await mcpClient(server(), key)
    for (const args of [null, [], [1]]) {
      await expect(client.callTool({ name: "list_deals", arguments: args as any })).rejects.toMatchObject({
        code: -32602
      })
    }
    await client.close()
  })

  it("refuses a write tool to a read-only key with missing_scope:write", async () => {
    const writer = tools.find((entry) => entry.scope === "write")
    if (writer === undefined) throw new Error("the catalogue has no write tool to refuse")
    const { key } = await server().tenant({ scopes: ["read"] })
    const client = await mcpClient(server(), key)
    const outcome = await callTool(client, writer.name, {})
    expect(outcome).toEqual({
      isError: true,
      value: { error: "missing_scope:write", detail: "this API key lacks the 'write' scope" }
    })
    await client.close()
  })

  it("never shows another organisation's record", async () => {
    expect(tools.map((entry) => entry.name)).toContain("get_contact")
    const mine = await server().tenant()
    const theirs = await server().tenant()
    const created = await theirs.client.post("/contacts", { first_name: "Hidden", email: "hidden@example.com" })
    expect(created.status).toBe(201)
    const own = await mine.client.post("/contacts", { first_name: "Mine" })
    const client = await mcpClient(server(), mine.key)
    const other = await callTool(client, "get_contact", { id: created.body.id })
    expect(other.isError).toBe(true)
    expect(other.value.error).toBe("not_found")
    const found = await callTool(client, "get_contact", { id: own.body.id })
    expect(found.isError).toBe(false)
    expect(JSON.stringify(found.value)).toContain(own.body.id)
    await client.close()
  })

  describe("the call pipeline", () => {
    it("validates, clamps and answers with structured content and the same JSON as text", async () => {
      const { key, keyId, organisation } = await server().tenant({ scopes: ["read"] })
      const client = await inMemoryClient(server(), key)
      const result = await client.callTool({ name: "echo", arguments: { text: "hi", limit: 99 } })
      const expected = { text: "hi", limit: 5, organisation: organisation.id, actor: { keyId } }
      expect(result.structuredContent).toEqual(expected)
      expect(result.isError).toBeFalsy()
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(expected)
      await client.close()
    })

    it("has a result that does not match the declared output schema refused by the client", async () => {
      const { key } = await server().tenant({ scopes: ["read"] })
      const client = await inMemoryClient(server(), key)
      await expect(client.callTool({ name: "undeclared", arguments: {} })).rejects.toThrow(
        /does not match the tool's output schema/
      )
      await client.close()
    })

    it("refuses bad arguments with validation_failed and the REST detail", async () => {
      const { key } = await server().tenant({ scopes: ["read"] })
      const client = await inMemoryClient(server(), key)
      expect(await callTool(client, "echo", { text: "", extra: 1 })).toEqual({
        isError: true,
        value: {
          error: "validation_failed",
          detail: expect.arrayContaining([
            { path: "text", message: expect.any(String), code: "too_small" },
            { path: "extra", message: "unknown field", code: "unrecognized_key" }
          ])
        }
      })
      expect(await callTool(client, "echo", {})).toMatchObject({
        isError: true,
        value: { error: "validation_failed", detail: [{ path: "text", code: "invalid_type" }] }
      })
      expect(await callTool(client, "echo", { text: "a\u0000b" })).toEqual({
        isError: true,
        value: {
          error: "validation_failed",
          detail: [
            {
              path: "text",
              message: "must not contain NUL characters or unpaired surrogates",
              code: "invalid_characters"
            }
          ]
        }
      })
      await client.close()
    })

    it("checks scope before validation, and refuses writing on a read-only plan", async () => {
      const readOnly = await server().tenant({ scopes: ["read"] })
      const client = await inMemoryClient(server(), readOnly.key)
      expect(await callTool(client, "write_something", { junk: "\u0000" })).toMatchObject({
        isError: true,
        value: { error: "missing_scope:write" }
      })
      await client.close()

      const plan = await server().tenant({ settings: { plan: { read_only: true } } })
      const planned = await inMemoryClient(server(), plan.key)
      expect(await callTool(planned, "write_something", {})).toMatchObject({
        isError: true,
        value: { error: "plan_refused" }
      })
      expect((await callTool(planned, "echo", { text: "still reads" })).isError).toBe(false)
      await planned.close()

      const writer = await server().tenant({ scopes: ["write"] })
      const noRead = await inMemoryClient(server(), writer.key)
      expect(await callTool(noRead, "echo", { text: "x" })).toMatchObject({
        isError: true,
        value: { error: "missing_scope:read" }
      })
      expect(await callTool(noRead, "write_something", {})).toEqual({ isError: false, value: { written: true } })
      await noRead.close()
    })

    it("turns the core's errors into tool errors and hides anything else", async () => {
      const { key } = await server().tenant({ scopes: ["read"] })
      const client = await inMemoryClient(server(), key)
      expect(await callTool(client, "missing")).toEqual({
        isError: true,
        value: { error: "not_found", detail: "no such thing" }
      })
      const crashed = await client.callTool({ name: "crash", arguments: {} })
      expect(crashed.isError).toBe(true)
      const text = (crashed.content as Array<{ text: string }>)[0]!.text
      expect(JSON.parse(text).error).toBe("internal_error")
      expect(text).not.toContain("secret internals")
      await client.close()
    })

    it("runs the session's check before every call (stdio spends the budget there)", async () => {
      const { key } = await server().tenant({ scopes: ["read"] })
      let calls = 0
      const client = await inMemoryClient(
        server(),
        key,
        Effect.suspend(() => {
          calls++
          return calls > 1
            ? Effect.fail(new Errors.RateLimited({ detail: "spent", retryAfterSeconds: 1, limit: 120 }))
            : Effect.succeed(undefined)
        })
      )
      expect((await callTool(client, "echo", { text: "one" })).isError).toBe(false)
      expect(await callTool(client, "echo", { text: "two" })).toMatchObject({
        isError: true,
        value: { error: "rate_limited", detail: "spent" }
      })
      await client.close()
    })

    it("checks each call against the principal the session's check returns (stdio re-reads its key)", async () => {
      const { key, keyId } = await server().tenant({ scopes: ["read", "write"] })
      // The session began with a read-write key that was revoked since: the fresh check refuses it.
      const reread = Effect.flatMap(Access.Access, (access) => access.authenticate(key, "127.0.0.1"))
      const client = await inMemoryClient(server(), key, reread)
      expect((await callTool(client, "write_something", {})).isError).toBe(false)
      await server().admin.delete(`/keys/${keyId}`)
      expect(await callTool(client, "echo", { text: "after" })).toMatchObject({
        isError: true,
        value: { error: "invalid_api_key" }
      })
      await client.close()
    })
  })
})
