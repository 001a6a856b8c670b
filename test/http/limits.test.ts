/**
 * Requests node refuses before the pipeline sees them (a URL or headers too long, bytes that are
 * not HTTP) get the API's own error body with a request id, not node's bare status line.
 */
import { connect } from "node:net"
import { Edge } from "@crm/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkedFetch } from "../support/responseCheck.js"
import { startServer, type TestServer } from "../support/server.js"
import { memory } from "../support/storages.js"

/** Sends bytes as they are and reads the whole answer (the server closes the connection after it). */
const raw = (port: number, bytes: string): Promise<{ status: number; headers: string; body: any }> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      const [head = "", body = ""] = text.split("\r\n\r\n")
      resolve({ status: Number(head.split(" ")[1]), headers: head.toLowerCase(), body: JSON.parse(body) })
    })
    socket.write(bytes)
  })

describe("requests refused before any route", () => {
  let server: TestServer | undefined
  const port = () => Number(new URL(server!.url).port)
  const url = (path: string) => `${server!.url}${path}`

  beforeAll(async () => {
    server = await startServer(memory.fresh())
  })
  afterAll(async () => {
    await server?.close()
  })

  const expectOurs = async (response: Response, status: number, code: string, requestId?: string) => {
    expect(response.status).toBe(status)
    expect(response.headers.get("content-type")).toContain("application/json")
    const id = response.headers.get("x-request-id")
    if (requestId === undefined) expect(id).toMatch(/^[0-9a-f-]{36}$/)
    else expect(id).toBe(requestId)
    expect(await response.json()).toEqual({ error: code, detail: expect.any(String), request_id: id })
  }

  it(`serves a URL of ${Edge.MAX_URL_BYTES} bytes and answers a longer one 414 uri_too_long`, async () => {
    const at = (length: number) => `/healthz?q=${"a".repeat(length - "/healthz?q=".length)}`
    expect((await checkedFetch(url(at(Edge.MAX_URL_BYTES)))).status).toBe(200)
    await expectOurs(
      await checkedFetch(url(at(Edge.MAX_URL_BYTES + 1)), { headers: { "x-request-id": "long-url" } }),
      414,
      "uri_too_long",
      "long-url"
    )
    const query = await server!.anonymous.get(`/contacts?q=${"a".repeat(10_000)}`)
    expect(query.status).toBe(414)
    expect(query.body.error).toBe("uri_too_long")
  })

  it("answers 414 uri_too_long also to a URL longer than the whole header limit", async () => {
    // Refused before its headers are read: the request id is a new one.
    await expectOurs(
      await checkedFetch(url(`/api/v1/contacts?q=${"a".repeat(100_000)}`), { headers: { "x-request-id": "huge-url" } }),
      414,
      "uri_too_long"
    )
  })

  it(`answers headers over ${Edge.MAX_HEADER_BYTES} bytes 431 headers_too_large`, async () => {
    await expectOurs(
      await checkedFetch(url("/api/v1/contacts"), {
        headers: { "x-request-id": "big-headers", "x-big": "b".repeat(100_000) }
      }),
      431,
      "headers_too_large",
      "big-headers"
    )
    await expectOurs(
      await checkedFetch(url("/api/v1/me"), { headers: { "x-a": "a".repeat(9000), "x-b": "b".repeat(9000) } }),
      431,
      "headers_too_large"
    )
    // The connection is closed after the answer; the next request is served as usual.
    expect((await checkedFetch(url("/healthz"))).status).toBe(200)
  })

  it("answers bytes that are not HTTP 400 bad_request", async () => {
    const answer = await raw(port(), "HELLO THERE\r\n\r\n")
    expect(answer.status).toBe(400)
    expect(answer.headers).toContain("content-type: application/json")
    expect(answer.headers).toContain("connection: close")
    expect(answer.body).toEqual({ error: "bad_request", detail: expect.any(String), request_id: expect.any(String) })
    expect(answer.headers).toContain(`x-request-id: ${answer.body.request_id}`)
    const badHeader = await raw(
      port(),
      "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: bad-header\r\nBad Header: x\r\n\r\n"
    )
    expect(badHeader.status).toBe(400)
    expect(badHeader.body.request_id).toBe("bad-header")
  })
})
