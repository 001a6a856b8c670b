/**
 * A person's connected apps revoked on one process are refused at once on another that had their
 * keys cached (two store layers with their own pools stand in for two processes): `revokeAppsOf`
 * raises the organisation's access version, as `revokeKey` does, which the other process's next
 * budget statement reads, and a key answer at least that new holds the revocation.
 */
import { Access, People } from "@crm/core"
import type * as StoragePg from "@crm/storage-pg"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, expect, it } from "vitest"
import { apiKey, at, newId, organisation } from "../../packages/testing/src/contract/Fixtures.js"
import { createServerDatabase, describeOnServer } from "../support/pgServer.js"
import { serverLayer } from "../support/storages.js"

describeOnServer("connected apps revoked on several processes", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  const scope = Effect.runSync(Scope.make())
  let processes: ReadonlyArray<Context.Context<StoragePg.Ports | SqlClient.SqlClient>> = []

  beforeAll(async () => {
    database = await createServerDatabase()
    const url = database.url
    processes = await Effect.runPromise(Effect.all([1, 2].map(() => Layer.buildWithScope(serverLayer(url), scope))))
  })
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await database?.drop()
  })

  const on = <A, E>(n: 0 | 1, effect: Effect.Effect<A, E, StoragePg.Ports | SqlClient.SqlClient>) =>
    Effect.runPromise(Effect.provide(effect, processes[n]!))

  const found = (n: 0 | 1, hash: string, atLeast?: number) =>
    on(
      n,
      Effect.flatMap(Access.AccessRepository, (access) => access.findKeyByHash(hash, atLeast)).pipe(
        Effect.map(Option.getOrThrow)
      )
    )

  /** What a request's budget statement reads on process `n`: the key's organisation's access version. */
  const currentVersion = (n: 0 | 1, key: Access.ApiKeyRecord) =>
    on(
      n,
      Effect.flatMap(Access.RateLimiter, (limiter) =>
        limiter.take(key.id, {
          organisationId: key.organisation_id,
          now: Date.now(),
          limit: 100,
          windowMs: 60_000,
          spend: false
        })
      ).pipe(Effect.map((decision) => decision.accessVersion))
    )

  /**
   * Resolves once `n` answers the key from its cache: its organisation's name, changed by SQL
   * without raising its access version, still reads as before. The name is put back before returning.
   */
  const untilCached = async (n: 0 | 1, hash: string) => {
    const deadline = Date.now() + 15_000
    while (Date.now() < deadline) {
      const { organisation } = await found(n, hash)
      const rename = (name: string) =>
        on(
          n,
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql`UPDATE organisations SET name = ${name} WHERE id = ${organisation.id}::uuid`.pipe(Effect.asVoid)
          )
        )
      await rename("changed behind its back")
      const after = await found(n, hash)
      await rename(organisation.name)
      if (after.organisation.name === organisation.name) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`process ${n} never answered from its cache`)
  }

  it("refuses the revoked apps' keys at once on the other process", async () => {
    const org = organisation("Apps")
    const person = newId(People.AccountId)
    const grantId = crypto.randomUUID()
    const key = apiKey(org.id, { grant_id: grantId, client_id: "https://client.example.test", created_by: person })
    await on(
      0,
      Effect.gen(function* () {
        const access = yield* Access.AccessRepository
        yield* access.insertOrganisation(org, at(0))
        yield* access.insertKey(key)
      })
    )
    await untilCached(0, key.hash)
    await untilCached(1, key.hash)
    const revoked = await on(
      0,
      Effect.flatMap(Access.AccessRepository, (access) => access.revokeAppsOf(org.id, person, at(50)))
    )
    expect(revoked).toEqual([key])
    // Unchecked, the other process's cache still holds the key live...
    expect((await found(1, key.hash)).key.revoked_at).toBeNull()
    // ...and what its next request's budget statement reads makes it read the key again.
    expect((await found(1, key.hash, await currentVersion(1, key))).key.revoked_at).toBe(at(50))
  })
})
