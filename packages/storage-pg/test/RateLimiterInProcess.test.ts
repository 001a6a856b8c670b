/**
 * The embedded store's rate windows, kept in the memory of the one process that holds the data
 * directory (`RateLimiter.layerInProcess`): a take writes no row, the organisation's access version
 * still comes with each decision, and the windows outlive a restart. Its decisions are the model
 * test's (test/model/RateLimiter.model.test.ts), which runs on PGlite too.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Access, Ids, Organisation } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { afterAll, describe, expect, it } from "vitest"
import { pgliteTemplate } from "../../../test/support/storages.js"
import * as StoragePg from "../src/index.js"

const dataDirs = mkdtempSync(join(tmpdir(), "crm-rate-windows-"))
afterAll(() => rmSync(dataDirs, { recursive: true, force: true }))

const keyId = Ids.brand(Access.KeyId, crypto.randomUUID())
const organisationId = Ids.brand(Organisation.OrganisationId, crypto.randomUUID())
const take = (now: number) =>
  Effect.flatMap(Access.RateLimiter, (limiter) =>
    limiter.take(keyId, { organisationId, now, limit: 2, windowMs: 60_000, spend: true })
  )
const rows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ key_id: string }>`SELECT key_id FROM rate_windows`)

describe("the embedded store's rate windows", () => {
  it("writes no row per take and keeps every key's window across a restart", async () => {
    const dataDir = join(dataDirs, "data")
    const loadDataDir = await pgliteTemplate()
    const first = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const decisions = [yield* take(1_000), yield* take(2_000)]
          return { decisions, rows: yield* rows }
        }).pipe(Effect.provide(StoragePg.layerPglite({ dataDir, loadDataDir })))
      )
    )
    expect(first.decisions.map((decision) => [decision.admitted, decision.remaining])).toEqual([
      [true, 1],
      [true, 0]
    ])
    // No organisation of that id: any cached key of it is stale.
    expect(first.decisions[0]!.accessVersion).toBe(Number.MAX_SAFE_INTEGER)
    expect(first.rows).toEqual([])

    const reopened = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const saved = yield* rows
          return { saved, refused: yield* take(3_000), later: yield* take(61_001) }
        }).pipe(Effect.provide(StoragePg.layerPglite({ dataDir })))
      )
    )
    expect(reopened.saved).toEqual([{ key_id: keyId }])
    expect(reopened.refused).toMatchObject({ admitted: false, remaining: 0, retryAfterMs: 58_000 })
    // The first take has left the window.
    expect(reopened.later).toMatchObject({ admitted: true, remaining: 0 })
  })
})
