import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export interface OutboundRequest {
  readonly url: string
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
  readonly timeoutMs: number
  /**
   * Asked for every address the host name resolves to, right before connecting: a reason refuses
   * the address. Checking what is actually connected to is what defeats DNS rebinding.
   */
  readonly refuseAddress: (address: string) => string | undefined
}

export type OutboundResult =
  | {
      readonly _tag: "Response"
      readonly status: number
      readonly retryAfter: string | undefined
      /** At most the first KiB of the body. */
      readonly excerpt: string
      readonly durationMs: number
    }
  | { readonly _tag: "Failure"; readonly error: string; readonly durationMs: number }

/** The outbound HTTP POST of a delivery: no redirects followed. Never fails; a failure is a result. */
export class WebhookSender extends Context.Tag("@crm/core/WebhookSender")<
  WebhookSender,
  { readonly send: (request: OutboundRequest) => Effect.Effect<OutboundResult> }
>() {}
