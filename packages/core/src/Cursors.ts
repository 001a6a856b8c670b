/**
 * The cursors of the sync lists: each verified against the list it is sent to before the list is
 * read from where it points, and the next one signed for the row after the page. Signed with the
 * store's cursor secret (`CursorSecret`), so that one process may continue another's walk.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { CursorHmac, webCrypto } from "./Cursors/CursorHmac.js"
import { CursorSecret } from "./Cursors/CursorSecret.js"
import * as SignedCursor from "./Cursors/SignedCursor.js"
import { invalidField, type StorageError, type ValidationFailed } from "./Errors.js"
import { type Keyed, keyOf, type Page, type SyncPageResult, type SyncRequest, toPage } from "./Wire.js"

export * from "./Cursors/CursorHmac.js"
export * from "./Cursors/CursorSecret.js"
export * from "./Cursors/SignedCursor.js"

export class Cursors extends Context.Tag("@crm/core/Cursors")<
  Cursors,
  {
    /**
     * A page of `scope`'s list: the query's cursor verified (422 naming `cursor` unless this list
     * gave it out, for this organisation and in this order), `read` run on the page from where it
     * points, and `next_cursor` signed for the page's last row when there is more.
     */
    readonly page: <A extends Keyed, E, R>(
      scope: SignedCursor.CursorScope,
      query: SyncRequest,
      read: (page: Page) => Effect.Effect<ReadonlyArray<A>, E, R>
    ) => Effect.Effect<SyncPageResult<A>, E | ValidationFailed | StorageError, R>
  }
>() {}

const NOT_OURS = "not a cursor this API gave out for this list, organisation and order (next_cursor)"

export const make: Effect.Effect<Context.Tag.Service<typeof Cursors>, never, CursorSecret> = Effect.gen(function* () {
  const store = yield* CursorSecret
  const hmac = Option.getOrElse(yield* Effect.serviceOption(CursorHmac), () => webCrypto)
  // The stored secret never changes, so one read per process is enough: a request pays for it only
  // until the first has it. Kept only inside the keyed MAC, never as text that could be logged.
  let cached: SignedCursor.SigningKey | undefined
  const secret: Effect.Effect<SignedCursor.SigningKey, StorageError> = Effect.suspend(() =>
    cached !== undefined
      ? Effect.succeed(cached)
      : SignedCursor.generateSecret.pipe(
          Effect.flatMap(store.get),
          Effect.flatMap((secret) => SignedCursor.importSecret(hmac, secret)),
          Effect.tap((key) => {
            cached = key
          })
        )
  )

  return Cursors.of({
    page: (scope, query, read) =>
      Effect.gen(function* () {
        const sent = query.cursor
        const from =
          sent === undefined
            ? undefined
            : yield* SignedCursor.verify(yield* secret, scope, query.order ?? "created_at", sent)
        if (sent !== undefined && from === undefined) return yield* Effect.fail(invalidField("cursor", NOT_OURS))
        const page: Page = { ...query, cursor: from }
        const base = toPage(yield* read(page), page)
        const last = base.has_more ? base.data.at(-1) : undefined
        return {
          ...base,
          next_cursor: last === undefined ? null : yield* SignedCursor.sign(yield* secret, scope, keyOf(last, query))
        }
      })
  })
})

export const layer = Layer.effect(Cursors, make)
