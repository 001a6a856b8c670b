import { Errors, Validation } from "@crm/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { bodyStream, type Input, readBody, readInput } from "../../src/edge/readBody.js"
import { HttpFailure } from "../../src/Reply.js"
import { admin, open, route, write } from "../../src/Route.js"
import { sending, streamOf } from "./fakes.js"

const outcome = <A>(effect: Effect.Effect<A, unknown>) => Effect.runPromise(Effect.either(effect))

describe("readBody", () => {
  it("answers the body's bytes as they arrived, in order", async () => {
    const incoming = streamOf()
    const read = outcome(readBody(incoming, 16))
    incoming.write("hello, ")
    incoming.end("world")
    expect(await read).toEqual(Either.right(Buffer.from("hello, world")))
  })

  it("answers a body of exactly the limit", async () => {
    expect(await outcome(readBody(sending("x".repeat(16)), 16))).toEqual(Either.right(Buffer.from("x".repeat(16))))
  })

  it("refuses a body declared larger than the limit with 413 before reading it", async () => {
    const incoming = streamOf({ "content-length": "17" })
    const result = await outcome(readBody(incoming, 16))
    expect(result).toMatchObject({ _tag: "Left", left: { code: "payload_too_large" } })
    // The rest is drained, so that the connection stays usable for the answer.
    expect(incoming.readableFlowing).toBe(true)
  })

  it("refuses a body that streams past the limit with 413, whatever it declared", async () => {
    const incoming = streamOf({ "content-length": "4" })
    const read = outcome(readBody(incoming, 16))
    incoming.write("x".repeat(10))
    incoming.write("x".repeat(10))
    incoming.end("x")
    const result = await read
    expect(result).toMatchObject({ _tag: "Left", left: { code: "payload_too_large" } })
    expect(Either.isLeft(result) && (result.left as HttpFailure).detail).toBe("the body exceeds the limit of 16 bytes")
  })

  it("refuses the body of a client that went away, before or while it was read", async () => {
    const gone = streamOf()
    gone.destroy()
    expect(await outcome(readBody(gone, 16))).toMatchObject({ _tag: "Left", left: { code: "invalid_json" } })

    const leaving = streamOf()
    const read = outcome(readBody(leaving, 16))
    leaving.write("half")
    leaving.destroy()
    expect(await read).toMatchObject({ _tag: "Left", left: { code: "invalid_json" } })
  })
})

describe("bodyStream", () => {
  const collect = (stream: Stream.Stream<Uint8Array, HttpFailure>) =>
    outcome(Stream.runFold(stream, "", (text, chunk) => text + Buffer.from(chunk).toString()))

  it("hands the bytes over as they arrive, up to the limit", async () => {
    const incoming = streamOf()
    const read = collect(bodyStream(incoming, 8))
    incoming.write("1234")
    incoming.end("5678")
    expect(await read).toEqual(Either.right("12345678"))
  })

  it("fails with 413 as it passes the limit, or at once when it declares more", async () => {
    const incoming = streamOf()
    const read = collect(bodyStream(incoming, 8))
    incoming.write("12345")
    incoming.end("6789")
    expect(await read).toMatchObject({ _tag: "Left", left: { code: "payload_too_large" } })
    expect(await collect(bodyStream(streamOf({ "content-length": "9" }), 8))).toMatchObject({
      _tag: "Left",
      left: { code: "payload_too_large" }
    })
  })
})

describe("readInput", () => {
  const Thing = z.object({ name: z.string() })
  const base = {
    method: "POST",
    path: "/things",
    operationId: "createThing",
    summary: "",
    tag: "things",
    guard: write,
    success: { status: 201, description: "" },
    errors: [],
    handle: () => Effect.succeed({ status: 201 })
  } as const
  const things = route({ ...base, body: Thing })
  const json = { "content-type": "application/json" }
  const read = (declared: typeof things, body: string, headers: Record<string, string> = json, query = "") =>
    outcome(readInput(declared, sending(body, headers), new URL(`http://localhost/things${query}`), 1024))
  const typed = (type: string | undefined): Record<string, string> =>
    type === undefined ? {} : { "content-type": type }

  it("answers the body validated, with its raw bytes for the fingerprint", async () => {
    expect(await read(things, '{"name":"Ada","extra":1}')).toEqual(
      Either.right({ raw: Buffer.from('{"name":"Ada","extra":1}'), query: undefined, body: { name: "Ada" } })
    )
  })

  it("takes any JSON media type, with parameters", async () => {
    for (const type of ["application/json; charset=utf-8", "APPLICATION/JSON", "application/merge-patch+json"]) {
      expect(await read(things, '{"name":"Ada"}', typed(type))).toMatchObject({ _tag: "Right" })
    }
  })

  it("refuses a JSON body sent without a JSON content type with 415", async () => {
    for (const type of [undefined, "text/plain", "application/jsonx", "application/x-ndjson"]) {
      expect(await read(things, '{"name":"Ada"}', typed(type))).toMatchObject({
        _tag: "Left",
        left: { code: "unsupported_media_type", detail: "send the body as Content-Type: application/json" }
      })
    }
  })

  it("refuses a body that is not JSON, naming the parse error", async () => {
    const text = '{"name":'
    const parseError = (() => {
      try {
        JSON.parse(text)
      } catch (error) {
        return (error as SyntaxError).message
      }
    })()
    expect(await read(things, text)).toEqual(
      Either.left(HttpFailure.of("invalid_json", `the body is not valid JSON: ${parseError}`))
    )
  })

  it("refuses a body its schema refuses, and a missing body of a route that needs one", async () => {
    expect(await read(things, '{"name":1}')).toMatchObject({ _tag: "Left", left: { code: "validation_failed" } })
    expect(await read(things, "")).toMatchObject({ _tag: "Left", left: { code: "validation_failed" } })
  })

  it("reads a left-out optional body as {}, but a JSON null as null", async () => {
    const optional = route({ ...base, body: z.object({ note: z.string().optional() }), optionalBody: true })
    expect(await read(optional, "", {})).toMatchObject({ _tag: "Right", right: { body: {} } })
    expect(await read(optional, "null")).toMatchObject({ _tag: "Left", left: { code: "validation_failed" } })
  })

  it("refuses a body string no store could keep, though its schema takes any string", async () => {
    for (const value of ["a\\u0000b", "\\ud800"]) {
      expect(await read(things, `{"name":"${value}"}`)).toMatchObject({
        _tag: "Left",
        left: { code: "validation_failed", detail: [{ path: "name" }] }
      })
    }
  })

  it("answers a patch naming no known field with no_fields_to_update", async () => {
    const patch = route({ ...base, method: "PATCH", body: z.object({ name: z.string().optional() }), patch: true })
    expect(await read(patch, '{"nom":"Ada"}')).toMatchObject({ _tag: "Left", left: { code: "no_fields_to_update" } })
    expect(await read(patch, '{"name":"Ada"}')).toMatchObject({ _tag: "Right", right: { body: { name: "Ada" } } })
  })

  it("answers a batch's item refused as batch_failed naming the item", async () => {
    const batch = route({ ...base, body: z.object({ items: z.array(Thing) }), batchBody: true })
    expect(await read(batch, '{"items":[{"name":"a"},{"name":2}]}')).toMatchObject({
      _tag: "Left",
      left: { code: "batch_failed", detail: { index: 1, error: "validation_failed" } }
    })
  })

  describe("the query", () => {
    const listed = { ...base, method: "GET", guard: open, query: z.object({ q: z.string().optional() }) } as const
    const list = route(listed)

    it("is validated by the route's schema", async () => {
      expect(await read(list, "", {}, "?q=ada")).toEqual(
        Either.right({ raw: undefined, query: { q: "ada" }, body: undefined })
      )
    })

    it("holding what no store could keep is validation_failed", async () => {
      expect(await read(list, "", {}, "?q=a%00b")).toMatchObject({
        _tag: "Left",
        left: { code: "validation_failed", detail: [{ path: "q" }] }
      })
    })

    it("is invalid_parameter naming the parameter where the route says so", async () => {
      const events = route({ ...listed, queryRefusal: "invalid_parameter" })
      const result = await read(events, "", {}, "?q=a%00b")
      const issue = Either.getOrThrow(Either.flip(Validation.refuseUnsafe({ q: "a\u0000b" }))).detail[0]!
      expect(Either.isLeft(result) && result.left).toBeInstanceOf(Errors.InvalidParameter)
      expect(result).toMatchObject({ left: { detail: { parameter: "q", message: issue.message } } })
    })
  })

  describe("a route whose body is JSON lines", () => {
    const lines = route({ ...base, guard: admin, body: z.string(), rawBody: "ndjson" })

    it("hands the lines over as text", async () => {
      const body = '{"a":1}\n{"a":2}\n'
      for (const type of ["application/x-ndjson", "application/jsonl; charset=utf-8", "application/x-jsonlines"]) {
        expect(await read(lines, body, typed(type))).toEqual(
          Either.right({ raw: Buffer.from(body), query: undefined, body })
        )
      }
    })

    it("refuses them sent as JSON", async () => {
      expect(await read(lines, '{"a":1}\n', json)).toMatchObject({
        _tag: "Left",
        left: { code: "unsupported_media_type", detail: "send the body as Content-Type: application/x-ndjson" }
      })
    })
  })

  describe("a route whose body is streamed", () => {
    const streamed = route({ ...base, guard: admin, body: z.string(), rawBody: "stream" })

    it("hands the bytes over as they arrive, unread by the stage", async () => {
      const incoming = streamOf({ "content-type": "application/x-ndjson" })
      const result = await outcome(readInput(streamed, incoming, new URL("http://localhost/things"), 1024))
      expect(result).toMatchObject({ _tag: "Right", right: { raw: undefined, query: undefined } })
      const input = Either.getOrThrow(result) as Input
      incoming.write('{"a":1}\n')
      incoming.end('{"a":2}\n')
      const chunks = await Effect.runPromise(Stream.runCollect(input.body as Stream.Stream<Uint8Array, HttpFailure>))
      expect(Buffer.concat(Chunk.toArray(chunks)).toString()).toBe('{"a":1}\n{"a":2}\n')
    })

    it("refuses another content type before reading anything", async () => {
      for (const type of [undefined, "application/json"]) {
        const incoming = streamOf(typed(type))
        expect(await outcome(readInput(streamed, incoming, new URL("http://localhost/things"), 1024))).toMatchObject({
          _tag: "Left",
          left: { code: "unsupported_media_type", detail: "send the body as Content-Type: application/x-ndjson" }
        })
      }
    })
  })
})
