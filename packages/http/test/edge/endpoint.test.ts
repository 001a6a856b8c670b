import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { type Endpoint, serveEndpoint, toWebRequest } from "../../src/edge/endpoint.js"
import type { EdgeFailure, Served } from "../../src/edge/Reached.js"
import { principalOf, streamOf } from "./fakes.js"

const url = new URL("http://localhost/mcp?session=1")

describe("toWebRequest", () => {
  it("carries the method, the URL and every header, repeated ones each", () => {
    const incoming = Object.assign(streamOf({}), {
      method: "GET",
      headers: { accept: "text/event-stream", "x-many": ["a", "b"] as unknown as string }
    })
    incoming.end()
    const request = toWebRequest(incoming, url)
    expect(request.method).toBe("GET")
    expect(request.url).toBe("http://localhost/mcp?session=1")
    expect(request.headers.get("accept")).toBe("text/event-stream")
    expect(request.headers.get("x-many")).toBe("a, b")
    expect(request.body).toBeNull()
  })

  it("hands the body over as it arrives", async () => {
    const incoming = streamOf({ "content-type": "application/json" })
    const request = toWebRequest(incoming, url)
    incoming.write('{"jsonrpc":')
    incoming.end('"2.0"}')
    expect(request.method).toBe("POST")
    expect(await request.text()).toBe('{"jsonrpc":"2.0"}')
  })
})

describe("serveEndpoint", () => {
  const principal = principalOf()
  const told: Array<{ request: Request; principal: unknown }> = []
  const endpoint: Endpoint = {
    path: "/mcp",
    handle: (request, caller) => {
      told.push({ request, principal: caller })
      return Effect.succeed(new Response("ok", { status: 202 }))
    }
  }
  const serve = (headers: Record<string, string>) =>
    Effect.runPromise(
      Effect.either(
        serveEndpoint(endpoint, streamOf(headers), url, principal, 16) as Effect.Effect<Served, EdgeFailure>
      )
    )

  it("answers the handler's web Response as it is, told who calls", async () => {
    const served = await serve({ "content-length": "16" })
    expect(served).toMatchObject({ _tag: "Right", right: { status: 202, headers: {}, replayed: false } })
    const body = served._tag === "Right" ? served.right.body : undefined
    expect(body).toBeInstanceOf(Response)
    expect(await (body as Response).text()).toBe("ok")
    expect(told.at(-1)).toMatchObject({ principal })
  })

  it("refuses a body declared larger than the limit with 413, before the handler", async () => {
    told.length = 0
    expect(await serve({ "content-length": "17" })).toMatchObject({
      _tag: "Left",
      left: { code: "payload_too_large" }
    })
    expect(told).toEqual([])
  })
})
