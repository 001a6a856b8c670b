/**
 * Stage: the route's handler, told who calls and what they sent, its reply rendered. Its failure
 * is rendered here rather than by the pipeline, because under an idempotency key a retry replays the
 * refusal as it was stored.
 */
import * as Effect from "effect/Effect"
import type * as Outage from "../Outage.js"
import type { Route, Services } from "../Route.js"
import type { StoredResponse } from "../StoredResponse.js"
import type { Reached } from "./Reached.js"
import type { Input } from "./readBody.js"
import { type Rendered, renderFailure, renderReply } from "./render.js"

export const handle = (
  route: Route,
  reached: Reached,
  params: Record<string, string>,
  input: Input,
  outage: Outage.Outage
): Effect.Effect<Rendered, never, Services> =>
  route
    .handle({
      principal: reached.principal ?? reached.caller,
      params,
      query: input.query,
      body: input.body,
      rateRemaining: reached.budget?.remaining
    })
    .pipe(
      Effect.map((reply) => renderReply(reply, route.success.encode)),
      Effect.catchAllCause((cause) => renderFailure(cause, reached.requestId, outage))
    )

/** What the idempotency store keeps is text: a route that answers a write with bytes is a defect. */
export const storable =
  (route: Route) =>
  (rendered: Rendered): Effect.Effect<StoredResponse> =>
    typeof rendered.body === "string"
      ? Effect.succeed({ status: rendered.status, headers: rendered.headers, body: rendered.body })
      : Effect.dieMessage(`${route.operationId} answers a write with bytes, which a retry could not replay`)
