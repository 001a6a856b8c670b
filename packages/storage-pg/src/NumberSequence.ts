import { Invoicing } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"

export const make: Effect.Effect<
  Context.Tag.Service<typeof Invoicing.NumberSequence>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return Invoicing.NumberSequence.of({
    // One statement: the upsert locks the counter's row until the caller's transaction ends, so a
    // concurrent issuer of the same series waits and then reads the committed value, and a
    // rollback takes the increment back with everything else. Consecutive, never shared.
    next: (organisationId, series, year) =>
      sql<{ last: number | string }>`INSERT INTO number_sequences (organisation_id, series, year, last)
        VALUES (${organisationId}::uuid, ${series}, ${year}::integer, 1)
        ON CONFLICT (organisation_id, series, year) DO UPDATE SET last = number_sequences.last + 1
        RETURNING last`.pipe(
        Effect.map(([row]) => Number(row.last)),
        orStorageError("NumberSequence.next")
      )
  })
})

export const layer = Layer.effect(Invoicing.NumberSequence, make)
