/**
 * An MCP client for tool tests: the SDK's Client over Streamable HTTP to a test server's
 * `/api/mcp`, authenticated with a key; `callTool` returns `{isError, value}` where `value` is the
 * structured result on success and the parsed error (`{error, detail}`) on a tool error.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { TestServer } from "./server.js"

export const mcpClient = async (server: TestServer, key: string): Promise<Client> => {
  const client = new Client({ name: "crm-tests", version: "0.0.0" })
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } }
  })
  await client.connect(transport)
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
