/**
 * Stage: the route's input. The body is read within its bound (a streamed body is handed over as it
 * arrives, within its own), parsed by its media type, checked for what no store could keep (nesting,
 * NUL, lone surrogates: `Validation`), then the query and body are validated by the route's schemas.
 * The raw bytes are kept for the idempotency fingerprint.
 */
import type { IncomingMessage } from "node:http"
import { Batch, Errors, Validation } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { header, MAX_STREAMED_BODY_BYTES } from "../Edge.js"
import { HttpFailure } from "../Reply.js"
import type { Route } from "../Route.js"

export interface Input {
  readonly raw: Buffer | undefined
  readonly query: unknown
  readonly body: unknown
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i
const NDJSON_TYPE = /^application\/(?:x-ndjson|jsonl|x-jsonlines)\s*(?:;|$)/i

const tooLarge = (limit: number) => HttpFailure.of("payload_too_large", `the body exceeds the limit of ${limit} bytes`)
const unreadable = () => HttpFailure.of("invalid_json", "the request body could not be read")
const wrongType = (expected: string) =>
  HttpFailure.of("unsupported_media_type", `send the body as Content-Type: ${expected}`)

/** The whole body, or 413 as soon as it passes `limit` (the rest is drained, not kept). */
export const readBody = (incoming: IncomingMessage, limit: number): Effect.Effect<Buffer, HttpFailure> =>
  Effect.async<Buffer, HttpFailure>((resume) => {
    // A client that went away before its body was read: node emits nothing more for it.
    if (incoming.destroyed) return resume(Effect.fail(unreadable()))
    if (Number(incoming.headers["content-length"] ?? "0") > limit) {
      incoming.resume()
      return resume(Effect.fail(tooLarge(limit)))
    }
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    incoming.on("data", (chunk: Buffer) => {
      if (done) return
      size += chunk.length
      if (size > limit) {
        done = true
        incoming.resume()
        return resume(Effect.fail(tooLarge(limit)))
      }
      chunks.push(chunk)
    })
    incoming.on("end", () => {
      if (!done) {
        done = true
        resume(Effect.succeed(Buffer.concat(chunks)))
      }
    })
    const fail = () => {
      if (!done) {
        done = true
        resume(Effect.fail(unreadable()))
      }
    }
    incoming.on("error", fail)
    incoming.on("close", fail)
  })

/** The body's bytes as they arrive; past `limit` it fails with 413 and the rest is not read. */
export const bodyStream = (incoming: IncomingMessage, limit: number): Stream.Stream<Uint8Array, HttpFailure> => {
  if (Number(incoming.headers["content-length"] ?? "0") > limit) return Stream.fail(tooLarge(limit))
  let size = 0
  // Not destroyed when the handler stops early (an import refused at a line): the rest is drained
  // once the answer is written (`Listener`), and the connection serves the client's next request.
  const chunks = incoming.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>
  return Stream.fromAsyncIterable(chunks, unreadable).pipe(
    Stream.mapEffect((chunk) => {
      size += chunk.length
      return size > limit ? Effect.fail(tooLarge(limit)) : Effect.succeed(chunk as Uint8Array)
    })
  )
}

/**
 * The query as the route declared it, and then checked for what no store could keep, as a body is;
 * a route that answers an unusable parameter with `invalid_parameter` (`GET /events`) says so.
 */
const readQuery = (route: Route, url: URL) => {
  if (route.query === undefined) return Either.right(undefined)
  return Either.flatMap(Validation.parse(route.query, Object.fromEntries(url.searchParams)), (query) =>
    Either.map(
      Either.mapLeft(Validation.refuseUnsafe(query), (refused) =>
        route.queryRefusal === "invalid_parameter"
          ? new Errors.InvalidParameter({
              detail: { parameter: refused.detail[0]!.path.split(".")[0], message: refused.detail[0]!.message }
            })
          : refused
      ),
      () => query
    )
  )
}

/** A JSON body's value, or its refusal; no body at all is `undefined`. */
const jsonOf = (raw: Buffer, contentType: string | undefined) => {
  if (raw.length === 0) return Either.right(undefined)
  if (contentType === undefined || !JSON_TYPE.test(contentType)) return Either.left(wrongType("application/json"))
  return Either.mapLeft(Validation.parseJson(raw.toString("utf8")), (error) =>
    error instanceof SyntaxError
      ? HttpFailure.of("invalid_json", `the body is not valid JSON: ${error.message}`)
      : error
  )
}

export const readInput = Effect.fnUntraced(function* (
  route: Route,
  incoming: IncomingMessage,
  url: URL,
  maxBodyBytes: number
) {
  const declared = route.body
  const contentType = header(incoming.headers, "content-type")
  // A streamed body is the handler's to read, as it arrives, within its own bound.
  if (declared?.raw === "stream") {
    if (contentType === undefined || !NDJSON_TYPE.test(contentType)) return yield* wrongType("application/x-ndjson")
    const query = yield* readQuery(route, url)
    return { raw: undefined, query, body: bodyStream(incoming, MAX_STREAMED_BODY_BYTES) } satisfies Input
  }
  // The body is read before anything is refused, so that the connection stays usable.
  const raw = declared === undefined ? undefined : yield* readBody(incoming, maxBodyBytes)
  const query = yield* readQuery(route, url)
  if (declared === undefined || raw === undefined) return { raw, query, body: undefined } satisfies Input
  if (declared.raw === "ndjson") {
    if (raw.length > 0 && (contentType === undefined || !NDJSON_TYPE.test(contentType))) {
      return yield* wrongType("application/x-ndjson")
    }
    return { raw, query, body: raw.toString("utf8") } satisfies Input
  }
  const parsed = yield* jsonOf(raw, contentType)
  const value = parsed === undefined && declared.optional ? {} : parsed
  yield* Validation.refuseUnsafe(value)
  const body = declared.patch
    ? yield* Validation.parsePatch(declared.schema as never, value)
    : declared.batch
      ? yield* Either.mapLeft(Validation.parse(declared.schema, value), Batch.itemRefusal)
      : yield* Validation.parse(declared.schema, value)
  return { raw, query, body } satisfies Input
})
