/**
 * An MCP client for tool tests: the SDK's Client over Streamable HTTP to a test server's
 * `/api/mcp`, authenticated with a key; `callTool` returns `{isError, value}` where `value` is the
 * structured result on success and the parsed error (`{error, detail}`) on a tool error.
 *
 * `mcpClient` lists the tools once after connecting: the SDK's client then checks every tool
 * call's structured result against the tool's listed `outputSchema` and throws on a mismatch, so
 * every MCP test also holds each result it reads to the tool's declared output.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import type { TestServer } from "./server.js"

/**
 * The SDK's Ajv validator, remembering what it compiled by the schema's text: each client compiles
 * every tool's output schema anew at `listTools` (Ajv caches by object), which took 0.2-0.4 s per
 * client, several times what most tool tests spend on their calls.
 */
const validators = ((ajv: AjvJsonSchemaValidator): jsonSchemaValidator => {
  const compiled = new Map<string, JsonSchemaValidator<unknown>>()
  return {
    getValidator: <T>(schema: Parameters<jsonSchemaValidator["getValidator"]>[0]) => {
      const text = JSON.stringify(schema)
      const known = compiled.get(text) ?? ajv.getValidator<unknown>(schema)
      compiled.set(text, known)
      return known as JsonSchemaValidator<T>
    }
  }
})(new AjvJsonSchemaValidator())

export const mcpClient = async (server: TestServer, key: string): Promise<Client> => {
  const client = new Client({ name: "crm-tests", version: "0.0.0" }, { jsonSchemaValidator: validators })
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } }
  })
  await client.connect(transport)
  await client.listTools()
  return client
}

export interface ToolOutcome {
  readonly isError: boolean
  /** `structuredContent` on success; the parsed error `{error, detail}` on a tool error. */
  readonly value: any
}

export const callTool = async (
  client: Client,
  name: string,
  args: Record<string, unknown> = {}
): Promise<ToolOutcome> => {
  const result = await client.callTool({ name, arguments: args })
  if (result.isError === true) {
    const content = result.content as ReadonlyArray<{ type: string; text?: string }>
    const text = content.find((part) => part.type === "text")?.text ?? "{}"
    try {
      return { isError: true, value: JSON.parse(text) }
    } catch {
      // Not one of ours (the SDK's own message): keep the text readable in a failed expectation.
      return { isError: true, value: { error: "unparsed", detail: text } }
    }
  }
  return { isError: false, value: result.structuredContent }
}
