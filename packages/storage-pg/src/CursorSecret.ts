import { Cursors, Errors } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { orStorageError } from "./internal/errors.js"
import { onPrimary } from "./internal/standby.js"

export const make: Effect.Effect<
  Context.Tag.Service<typeof Cursors.CursorSecret>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const stored = sql<{ readonly secret: string }>`SELECT secret FROM cursor_secret`.pipe(
    Effect.map(([row]) => row?.secret)
  )

  return Cursors.CursorSecret.of({
    // Read first: once the secret exists (every call but a store's first), one statement. The
    // insert of a concurrent first caller, in this process or another, waits for the one that
    // wins and then does nothing; the read after it, a statement of its own, sees the winner. On
    // the primary: the first use of a list's cursor writes, and a standby may not have the secret yet.
    get: (candidate) =>
      Effect.flatMap(stored, (secret) =>
        secret !== undefined
          ? Effect.succeed(secret)
          : sql`INSERT INTO cursor_secret (secret) VALUES (${Redacted.value(candidate)}) ON CONFLICT DO NOTHING`.pipe(
              Effect.zipRight(stored),
              Effect.flatMap((secret) =>
                secret !== undefined
                  ? Effect.succeed(secret)
                  : Effect.fail(new Errors.StorageError({ message: "the cursor secret was not stored" }))
              )
            )
      ).pipe(Effect.map(Redacted.make), orStorageError("CursorSecret.get"), onPrimary)
  })
})

export const layer = Layer.effect(Cursors.CursorSecret, make)
