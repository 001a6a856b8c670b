/**
 * The upgrade to an opaque idempotency payload (storage-pg's migration 0022): a response a running
 * server stored before, as status, headers and body, is encoded by the migration as the HTTP
 * transport encodes one, so a retry arriving after the upgrade still replays it.
 */
import { Access, Idempotency, Ids, Transaction } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { expect, it } from "vitest"
import { decode } from "../../packages/http/src/StoredResponse.js"
import createIdempotency from "../../packages/storage-pg/src/migrations/0003_idempotency.js"
import idempotencyPayload from "../../packages/storage-pg/src/migrations/0022_idempotency_payload.js"
import { pgliteStore } from "../support/storages.js"

it("replays a response stored before migration 0022 after it", async () => {
  const stored = {
    status: 201,
    headers: { "content-type": "application/json", location: "/api/v1/contacts/1" },
    body: '{"id":"1","note":"two\\nlines"}\n'
  }
  // On a store of its own, not the worker's lent one: the test drops and remakes a table.
  const replayed = await Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // The table as it was before 0022, holding a response as it was stored then.
      yield* sql`DROP TABLE idempotency`
      yield* createIdempotency
      yield* sql`INSERT INTO idempotency (key_id, idem_key, fingerprint, status, headers, body, created_at)
        VALUES ('k', 'retry-1', 'f', ${stored.status}, ${JSON.stringify(stored.headers)}::jsonb, ${stored.body},
          '2026-11-28T00:00:00Z')`
      yield* idempotencyPayload
      const store = yield* Idempotency.IdempotencyStore
      const tx = yield* Transaction.Transaction
      return yield* tx.run(
        store.claim({ keyId: Ids.brand(Access.KeyId, "k"), idempotencyKey: "retry-1" }, "2026-11-27T00:00:00Z")
      )
    }).pipe(Effect.provide(pgliteStore()), Effect.scoped)
  )
  expect(Option.map(replayed, (record) => decode(record.payload))).toEqual(Option.some(stored))
})
