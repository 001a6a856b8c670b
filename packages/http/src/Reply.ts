import * as Data from "effect/Data"
import type { ErrorCode } from "./ErrorStatus.js"
/**
 * What a handler answers; the pipeline turns it into bytes, headers and (for idempotency) a stored
 * response. `A` is the body its route's success schema describes.
 */
export interface Reply<A = unknown> {
  readonly status: number
  readonly body?: A
  /** The body already rendered as JSON text (a large document served as it was made), in place of `body`. */
  readonly json?: string
  /** A body that is not JSON (a PDF), sent as these bytes under the `content-type` of `headers`. */
  readonly bytes?: Uint8Array
  /** A body written as it is made (an organisation's export), under the `content-type` of `headers`. */
  readonly stream?: ReadableStream<Uint8Array>
  readonly headers?: Readonly<Record<string, string>>
}

export const ok = <A>(body: A): Reply<A> => ({ status: 200, body })
export const created = <A>(body: A): Reply<A> => ({ status: 201, body })
export const noContent: Reply = { status: 204 }
/** A 200 with a body of another media type than JSON, for a route that reads (a write's answer is stored as text). */
export const file = (
  contentType: string,
  bytes: Uint8Array,
  headers: Readonly<Record<string, string>> = {}
): Reply => ({
  status: 200,
  bytes,
  headers: { ...headers, "content-type": contentType }
})

/** Client-visible failure raised by the transport itself (bad JSON, wrong media type, unknown route). */
export class HttpFailure<Code extends ErrorCode = ErrorCode> extends Data.TaggedError("HttpFailure")<{
  readonly code: Code
  readonly detail: unknown
  readonly headers: Readonly<Record<string, string>>
}> {
  static of<Code extends ErrorCode>(
    code: Code,
    detail: unknown,
    headers: Readonly<Record<string, string>> = {}
  ): HttpFailure<Code> {
    return new HttpFailure({ code, detail, headers })
  }
}
