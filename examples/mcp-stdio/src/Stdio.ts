/**
 * The assistant's side of the process: the SDK's stdio transport, closed when the assistant closes
 * our stdin. That is how MCP's stdio transport ends a session (the client closes the server's
 * input, waits for it to exit, then sends SIGTERM), but the SDK's server transport reads only
 * `data` and `error`, so it never closed: the process lingered until its timers ran out (about
 * 10 s in local mode) and the SDK's client killed it after 2 s, before PGlite was closed.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"

export const transport = (): StdioServerTransport => {
  const stdio = new StdioServerTransport()
  process.stdin.once("end", () => {
    process.stderr.write("crm-mcp: the assistant closed stdin; stopping\n")
    void stdio.close()
  })
  return stdio
}
