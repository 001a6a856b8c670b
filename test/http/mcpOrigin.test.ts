/**
 * DNS-rebinding protection at `/api/mcp` (a MUST of the MCP Streamable HTTP transport): a request
 * whose `Origin` is another site's, or whose `Host` is not a name of a server listening on
 * loopback, is refused with 403 `origin_refused` before its key is looked at; clients that send no
 * `Origin` (not browsers) and the server's own names pass, and REST is left as it was.
 * Requests go through node's `http.request`, since fetch does not let a test choose `Host`.
 */
import { request } from "node:http"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ServeConfig } from "../../examples/server/src/Serve.js"
import { startServer, type TestServer } from "../support/server.js"
import { memory } from "../support/storages.js"

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "origin-test", version: "0.0.0" } }
})

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: any
}

/** A request to the test server's socket with exactly the headers given (`host` included, when given). */
const send = (server: TestServer, method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<Answer>((resolve, reject) => {
    const { hostname, port } = new URL(server.url)
    const outgoing = request({ host: hostname, port, method, path, headers }, (incoming) => {
      const chunks: Array<Buffer> = []
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
      incoming.on("error", reject)
      incoming.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        resolve({
          status: incoming.statusCode!,
          headers: incoming.headers,
          body: text === "" ? null : JSON.parse(text)
        })
      })
    })
    outgoing.on("error", reject)
    outgoing.end(body)
  })

/** An MCP `initialize` POST with the given headers beside the protocol's own. */
const mcp = (server: TestServer, headers: Record<string, string>) =>
  send(
    server,
    "POST",
    "/api/mcp",
    { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    initialize
  )

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

const expectRefused = (answer: Answer) => {
  expect(answer.status).toBe(403)
  expect(answer.body).toEqual({ error: "origin_refused", detail: expect.any(String), request_id: expect.any(String) })
  // Refused before the key: no unit of any budget spent, nothing said of one.
  expect(answer.headers["x-ratelimit-remaining"]).toBeUndefined()
}

const expectServed = (answer: Answer) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  expect(answer.body.result.protocolVersion).toBe("2025-11-25")
}

describe("/api/mcp on a server listening on loopback, without a public URL", () => {
  let server: TestServer
  let key: string
  let port: string
  beforeAll(async () => {
    server = await startServer(memory.fresh(), { allowedOrigins: ["https://Assistant.example/"] })
    key = (await server.tenant({ scopes: ["read"] })).key
    port = new URL(server.url).port
  })
  afterAll(() => server.close())

  it("refuses an Origin of another site, with a valid key and without one", async () => {
    expectRefused(await mcp(server, { ...bearer(key), origin: "http://evil.example" }))
    expectRefused(await mcp(server, { origin: "http://evil.example" }))
    expectRefused(await mcp(server, { ...bearer(key), origin: "null" }))
    // The server's own address on another port is another origin.
    expectRefused(await mcp(server, { ...bearer(key), origin: "http://127.0.0.1:1" }))
  })

  it("serves its own origin (the Host the request was sent to) and a configured one", async () => {
    expectServed(await mcp(server, { ...bearer(key), origin: `http://127.0.0.1:${port}` }))
    expectServed(await mcp(server, { ...bearer(key), host: `localhost:${port}`, origin: `http://localhost:${port}` }))
    expectServed(await mcp(server, { ...bearer(key), origin: "https://assistant.example" }))
    expectRefused(await mcp(server, { ...bearer(key), origin: "https://assistant.example.evil.example" }))
    expectRefused(await mcp(server, { ...bearer(key), origin: "http://assistant.example" }))
  })

  it("serves a client that sends no Origin, and leaves its key to authentication", async () => {
    expectServed(await mcp(server, bearer(key)))
    expectRefused(await mcp(server, { ...bearer(key), origin: "http://evil.example" }))
    const unauthenticated = await mcp(server, {})
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.body.error).toBe("missing_bearer_token")
  })

  it("refuses a Host that is not a name of this machine, as a rebinding page sends it", async () => {
    expectRefused(await mcp(server, { ...bearer(key), host: "evil.example" }))
    expectRefused(await mcp(server, { host: `evil.example:${port}` }))
    // A page at a name rebound to 127.0.0.1 is its own origin: only its Host gives it away.
    expectRefused(
      await mcp(server, { ...bearer(key), host: `evil.example:${port}`, origin: `http://evil.example:${port}` })
    )
    expectRefused(await mcp(server, { ...bearer(key), host: `localhost.evil.example:${port}` }))
  })

  it("serves the loopback names on any port, and an allowed origin's host", async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, "LOCALHOST", "127.0.0.1:1"]) {
      expectServed(await mcp(server, { ...bearer(key), host }))
    }
    expectServed(await mcp(server, { ...bearer(key), host: "assistant.example" }))
    expectRefused(await mcp(server, { ...bearer(key), host: "assistant.example.evil.example" }))
  })

  it("leaves REST as it was: a key's request from anywhere is answered", async () => {
    const foreign = { ...bearer(key), host: "evil.example", origin: "http://evil.example" }
    expect((await send(server, "GET", "/api/v1/me", foreign)).status).toBe(200)
    expectRefused(await mcp(server, foreign))
  })
})

describe("/api/mcp on a server with a public URL", () => {
  let server: TestServer
  let key: string
  let port: string
  beforeAll(async () => {
    server = await startServer(memory.fresh(), { publicUrl: "https://crm.example" })
    key = (await server.tenant({ scopes: ["read"] })).key
    port = new URL(server.url).port
  })
  afterAll(() => server.close())

  it("takes the public URL's origin and host as its own, and the Host's origin no longer", async () => {
    expectServed(await mcp(server, { ...bearer(key), host: "crm.example", origin: "https://crm.example" }))
    expectRefused(await mcp(server, { ...bearer(key), origin: `http://127.0.0.1:${port}` }))
    expectRefused(await mcp(server, { ...bearer(key), host: "evil.example", origin: "https://crm.example" }))
    expectServed(await mcp(server, bearer(key)))
  })
})

describe("CRM_ALLOWED_ORIGINS", () => {
  const read = (value: string) =>
    Effect.runPromise(
      Effect.either(
        Effect.withConfigProvider(ServeConfig, ConfigProvider.fromMap(new Map([["CRM_ALLOWED_ORIGINS", value]])))
      )
    )

  it("is read as comma-separated origins, none when unset", async () => {
    const listed = await read(" https://a.example, http://localhost:6274/ ,")
    expect(listed._tag === "Right" && listed.right.allowedOrigins).toEqual([
      "https://a.example",
      "http://localhost:6274/"
    ])
    const unset = await Effect.runPromise(Effect.withConfigProvider(ServeConfig, ConfigProvider.fromMap(new Map())))
    expect(unset.allowedOrigins).toEqual([])
  })

  it("refuses what is not an origin", async () => {
    for (const value of ["crm.example", "https://a.example/path", "ftp://a.example", "https://u@a.example", "null"]) {
      expect((await read(value))._tag, value).toBe("Left")
    }
  })
})
