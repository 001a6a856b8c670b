/**
 * The embedded store's rate windows, kept in the memory of the one process that holds the data
 * directory (`RateLimiter.layerInProcess`): a take sends no statement and its decision carries no
 * access version (this process's key cache is never stale: it raises it itself, and emptying the
 * store forgets it), and the windows outlive a restart. Its decisions are the model test's
 * (test/model/RateLimiter.model.test.ts), which runs on PGlite too.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Access, Ids, Organisation } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { afterAll, describe, expect, it } from "vitest"
import { pgliteTemplate } from "../../../test/support/storages.js"
import { apiKey, at, organisation } from "../../testing/src/contract/Fixtures.js"
import * as AccessRepository from "../src/AccessRepository.js"
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
    // Nothing read: this process's own key cache is never stale.
    expect(first.decisions.map((decision) => decision.accessVersion)).toEqual([undefined, undefined])
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

  /** On a new PGlite store: an organisation (in test mode) and a key of it, then `use` on them. */
  const withKey = async <A>(
    use: (
      access: Context.Tag.Service<typeof Access.AccessRepository>,
      key: Access.ApiKeyRecord
    ) => Effect.Effect<A, unknown, StoragePg.Ports | SqlClient.SqlClient>
  ): Promise<A> => {
    const org = { ...organisation("Keys"), test_clock: { frozen_at: null } }
    const key = apiKey(org.id)
    const loadDataDir = await pgliteTemplate()
    return Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const access = yield* Access.AccessRepository
          yield* access.insertOrganisation(org, at(0))
          yield* access.insertKey(key)
          return yield* use(access, key)
        }).pipe(Effect.provide(StoragePg.layerPglite({ loadDataDir })))
      )
    )
  }

  it("forgets the keys it cached when the store is emptied", async () => {
    const found = await withKey((access, key) =>
      Effect.gen(function* () {
        const before = yield* access.findKeyByHash(key.hash)
        yield* yield* StoragePg.emptying
        return { before, after: yield* access.findKeyByHash(key.hash) }
      })
    )
    expect(Option.isSome(found.before)).toBe(true)
    expect(Option.isNone(found.after)).toBe(true)
  })

  it("answers, from its cache, a key revoked and an organisation changed by this process as they now are", async () => {
    const found = await withKey((access, key) =>
      Effect.gen(function* () {
        // Cached now: what follows is answered by the cache, raised by the changes themselves.
        const before = Option.getOrThrow(yield* access.findKeyByHash(key.hash))
        yield* access.setTestClock(key.organisation_id, null, at(10))
        const moved = Option.getOrThrow(yield* access.findKeyByHash(key.hash))
        yield* access.revokeKey(key.id, at(20))
        const revoked = Option.getOrThrow(yield* access.findKeyByHash(key.hash))
        return { before, moved, revoked }
      })
    )
    expect(found.before.key.revoked_at).toBeNull()
    expect(found.moved.organisation.test_clock).toEqual({ frozen_at: at(10) })
    expect(found.revoked.key.revoked_at).toBe(at(20))
  })

  it("answers a key revoked through another repository over the same client as revoked", async () => {
    const found = await withKey((access, key) =>
      Effect.gen(function* () {
        const other = yield* AccessRepository.makeWith()
        const before = Option.getOrThrow(yield* other.findKeyByHash(key.hash))
        yield* access.revokeKey(key.id, at(20))
        return { before, after: Option.getOrThrow(yield* other.findKeyByHash(key.hash)) }
      })
    )
    expect(found.before.key.revoked_at).toBeNull()
    expect(found.after.key.revoked_at).toBe(at(20))
  })
})
