/**
 * Every failed call's error: the server's error body (`error` code, `detail`, `request_id`) with the
 * status, or one of the client's own codes when no error body came back.
 */

/** Codes the client gives when there is no error body to read one from. */
export type ClientErrorCode =
  /** No response: the connection failed or the call was aborted (`cause` holds what fetch threw). */
  | "network_error"
  /** A response that is not the server's error body (a proxy's page, a success body that is not JSON). */
  | "unexpected_response"

export interface CrmErrorFields<Code extends string> {
  readonly status: number
  readonly code: Code
  readonly detail: unknown
  readonly requestId: string
  readonly retryAfter?: number | undefined
}

export class CrmError<Code extends string = string> extends Error {
  override readonly name = "CrmError"
  /** The HTTP status; 0 when no response came back (`network_error`). */
  readonly status: number
  /** The body's `error` code (typed by the operation's documented codes), or a `ClientErrorCode`. */
  readonly code: Code
  /** The body's `detail`: for `validation_failed` a list of `ValidationIssue`s, else what the code's description names. */
  readonly detail: unknown
  /**
   * The request id to quote when reporting the error: the body's `request_id`, else the response's
   * `X-Request-Id`, else (no response) the `X-Request-Id` the client sent, which the server adopts.
   */
  readonly requestId: string
  /** The response's `Retry-After`, in seconds, when it had one (a 429 the client did not wait out). */
  readonly retryAfter: number | undefined

  constructor(fields: CrmErrorFields<Code>, options?: ErrorOptions) {
    const said = typeof fields.detail === "string" ? fields.detail : JSON.stringify(fields.detail)
    super(
      `${fields.status} ${fields.code}${said === undefined ? "" : `: ${said}`} (request ${fields.requestId})`,
      options
    )
    this.status = fields.status
    this.code = fields.code
    this.detail = fields.detail
    this.requestId = fields.requestId
    this.retryAfter = fields.retryAfter
  }
}
