/**
 * Stage: a key's write runs once per `Idempotency-Key` (the core's `Idempotency`): a retry with the
 * same key and the same request gets the first answer again, marked replayed; the same key with
 * another request is refused. The request is fingerprinted by its method, path, query and raw body.
 */
import { createHash } from "node:crypto"
import { Idempotency } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { header } from "../Edge.js"
import type * as Outage from "../Outage.js"
import { HttpFailure } from "../Reply.js"
import { isWriting, type Route, type Services } from "../Route.js"
import * as StoredResponse from "../StoredResponse.js"
import { handle, storable } from "./handle.js"
import type { EdgeFailure, Reached, Served } from "./Reached.js"
import type { Input } from "./readBody.js"
import type { Rendered } from "./render.js"

/** `Idempotency-Key`: 1..255 printable ASCII, or the same as a structured-field quoted string. */
export const idempotencyKeyOf = (
  value: string | undefined
): Either.Either<string | undefined, HttpFailure<"validation_failed">> => {
  if (value === undefined) return Either.right(undefined)
  const key = /^"(.*)"$/.exec(value)?.[1] ?? value
  return /^[\x20-\x7e]{1,255}$/.test(key)
    ? Either.right(key)
    : Either.left(
        HttpFailure.of("validation_failed", [
          { path: "Idempotency-Key", message: "must be 1 to 255 printable ASCII characters", code: "invalid_header" }
        ])
      )
}

export const fingerprint = (method: string, url: URL, raw: Buffer | undefined): string =>
  createHash("sha256")
    .update(`${method} ${url.pathname}${url.search}\n`)
    .update(raw ?? Buffer.alloc(0))
    .digest("hex")

/** A handler's answer as it was made now, not replayed. */
const fresh = (rendered: Rendered): Served => Object.assign({ replayed: false }, rendered)

/** The handler, or for a key's write under an `Idempotency-Key`, its first answer. */
export const once = (
  route: Route,
  reached: Reached,
  url: URL,
  params: Record<string, string>,
  input: Input,
  outage: Outage.Outage
): Effect.Effect<Served, EdgeFailure, Services> => {
  const run = handle(route, reached, params, input, outage)
  const principal = reached.principal
  if (!isWriting(route) || principal === undefined) return Effect.map(run, fresh)
  return Either.match(idempotencyKeyOf(header(reached.incoming.headers, "idempotency-key")), {
    onLeft: Effect.fail,
    onRight: (idempotencyKey) => {
      if (idempotencyKey === undefined) return Effect.map(run, fresh)
      return Effect.flatMap(Idempotency.Idempotency, (idempotency) =>
        idempotency.execute(
          { keyId: principal.key.id, idempotencyKey },
          fingerprint(reached.method, url, input.raw),
          Effect.map(Effect.flatMap(run, storable(route)), StoredResponse.toRun)
        )
      ).pipe(
        Effect.map((result): Served => Object.assign({ replayed: result.replayed }, StoredResponse.ofOutcome(result)))
      )
    }
  })
}
