import * as Data from "effect/Data"
import type { ErrorCode } from "./ErrorStatus.js"
/** What a handler answers; the pipeline turns it into bytes, headers and (for idempotency) a stored response. */
export interface Reply {
  readonly status: number
  readonly body?: unknown
  /** The body already rendered as JSON text (a large document served as it was made), in place of `body`. */
  readonly json?: string
  readonly headers?: Readonly<Record<string, string>>
}

export const ok = (body: unknown): Reply => ({ status: 200, body })
export const created = (body: unknown): Reply => ({ status: 201, body })
export const noContent: Reply = { status: 204 }

/** Client-visible failure raised by the transport itself (bad JSON, wrong media type, unknown route). */
export class HttpFailure extends Data.TaggedError("HttpFailure")<{
  readonly code: string
  readonly detail: unknown
  readonly headers: Readonly<Record<string, string>>
}> {
  static of(code: ErrorCode, detail: unknown, headers: Readonly<Record<string, string>> = {}): HttpFailure {
    return new HttpFailure({ code, detail, headers })
  }
}
