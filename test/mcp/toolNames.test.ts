/**
 * Every tool is listed under its own name. The server loads the assistant interface on the first
 * call to `/api/mcp`, so a clash would surface there, not at start: this holds the shipped list.
 */
import { assertUniqueNames, McpServer, tools } from "@crm/mcp"
import { describe, expect, it } from "vitest"

describe("tool names", () => {
  it("are unique in the shipped list", () => {
    expect(() => assertUniqueNames(tools)).not.toThrow()
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length)
  })

  it("refuse an interface over a list where two tools share a name", () => {
    expect(() => McpServer.make([...tools, tools[0]!])).toThrow()
  })
})
