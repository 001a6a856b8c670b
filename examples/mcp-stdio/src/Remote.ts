/**
 * Remote mode: a message-level bridge between the desktop assistant (stdio) and a hosted CRM's
 * `/api/mcp` (Streamable HTTP with the key as Bearer token). Every JSON-RPC message is passed on
 * unchanged; a request the server cannot be reached for is answered with a JSON-RPC error that
 * says why, so the assistant sees the reason instead of waiting.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  ErrorCode,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage
} from "@modelcontextprotocol/sdk/types.js"
import * as Stdio from "./Stdio.js"

const log = (message: string) => process.stderr.write(`crm-mcp: ${message}\n`)

/** Resolves when either side closes. */
export const bridge = async (options: { readonly url: string; readonly apiKey: string }): Promise<void> => {
  const endpoint = new URL("/api/mcp", options.url)
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } }
  })
  const local = Stdio.transport()
  // The initialize request's id: its answer carries the negotiated protocol version, which the
  // HTTP transport must then send as `MCP-Protocol-Version` on every later request.
  let initializeId: string | number | undefined

  const closed = new Promise<void>((resolve) => {
    local.onclose = () => {
      void remote.close().finally(resolve)
    }
    remote.onclose = () => {
      void local.close().finally(resolve)
    }
  })

  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === "initialize") initializeId = message.id
    remote.send(message).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error)
      log(`the CRM at ${endpoint.href} refused or could not be reached: ${reason}`)
      if (isJSONRPCRequest(message)) {
        void local.send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: ErrorCode.InternalError, message: `CRM server ${endpoint.href}: ${reason}` }
        })
      }
    })
  }
  remote.onmessage = (message: JSONRPCMessage) => {
    if (initializeId !== undefined && isJSONRPCResultResponse(message) && message.id === initializeId) {
      const version = message.result.protocolVersion
      if (typeof version === "string") remote.setProtocolVersion(version)
      initializeId = undefined
    }
    void local.send(message)
  }
  local.onerror = (error) => log(`stdio: ${error.message}`)
  remote.onerror = (error) => log(`http: ${error.message}`)

  await remote.start()
  await local.start()
  log(`bridging stdio to ${endpoint.href}`)
  await closed
}
