/**
 * The assistant tools that show quotes or invoices give each one's PDF path (issue 15), and that
 * path is where the HTTP server serves the document to the same key.
 */
import type { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js"
import { afterAll, beforeAll, expect, it } from "vitest"
import { callTool, mcpClient } from "../support/mcp.js"
import { checkedFetch } from "../support/responseCheck.js"
import type { TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const LINE = { name: "Consulting", quantity: 1, unit_price: 100, vat_rate: 21 }

onEveryStore("MCP: PDF paths of quotes and invoices", (server) => {
  let mcp: McpClient
  let key: string
  let quoteId: string
  let invoiceId: string
  beforeAll(async () => {
    const tenant = await server().tenant({ scopes: ["read", "write", "quotes:write", "invoices:write"] })
    key = tenant.key
    quoteId = (await tenant.client.post("/quotes", { items: [LINE] })).body.id
    const draft = await tenant.client.post("/invoices", { items: [LINE] })
    invoiceId = (await tenant.client.post(`/invoices/${draft.body.id}/issue`)).body.id
    mcp = await mcpClient(server(), key)
  })
  afterAll(async () => {
    await mcp?.close()
  })

  const servedPdf = async (s: TestServer, path: string) => {
    const response = await checkedFetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
    await response.arrayBuffer()
    return { status: response.status, type: response.headers.get("content-type") }
  }

  it("list_quotes, list_invoices and list_unpaid_invoices give each item's PDF, served at that path", async () => {
    const cases = [
      ["list_quotes", "quotes", quoteId],
      ["list_invoices", "invoices", invoiceId],
      ["list_unpaid_invoices", "invoices", invoiceId]
    ] as const
    for (const [name, kind, id] of cases) {
      const result = await callTool(mcp, name)
      expect(result.isError, name).toBe(false)
      expect(
        result.value.items.map((item: any) => item.pdf),
        name
      ).toEqual([`/api/v1/${kind}/${id}/pdf`])
      expect(await servedPdf(server(), result.value.items[0].pdf)).toEqual({ status: 200, type: "application/pdf" })
    }
    const { tools } = await mcp.listTools()
    for (const name of ["list_quotes", "list_invoices", "list_unpaid_invoices"]) {
      expect(tools.find((tool) => tool.name === name)?.description, name).toContain("`pdf`")
    }
  })
})
