/**
 * `Access.authenticate` (what an MCP stdio session, or an app embedding the kernel, checks a key
 * with) refuses a key revoked on another process that had it cached, as `admit` does: two kernels
 * with their own store layers and pools stand in for two processes on one database. The other
 * process's cache still holds the key; what tells it is the organisation's access version, read
 * with the budget.
 */
import { Access, Kernel } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createServerDatabase, describeOnServer } from "../support/pgServer.js"
import { serverLayer } from "../support/storages.js"

describeOnServer("a key revoked on one process, authenticated on another", () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>> | undefined
  const scope = Effect.runSync(Scope.make())
  let processes: ReadonlyArray<Context.Context<Kernel.Services>> = []

  beforeAll(async () => {
    database = await createServerDatabase()
    const url = database.url
    processes = await Effect.runPromise(
      Effect.all(
        [1, 2].map(() =>
          Layer.buildWithScope(Kernel.layerWith({ rateLimit: 120 }).pipe(Layer.provideMerge(serverLayer(url))), scope)
        )
      )
    )
  })
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await database?.drop()
  })

  const on = <A, E>(n: 0 | 1, f: (access: Context.Tag.Service<typeof Access.Access>) => Effect.Effect<A, E>) =>
    Effect.runPromise(Effect.provide(Effect.flatMap(Access.Access, f), processes[n]!))

  it("is refused at once, not when the other process's cached entry ages out", async () => {
    const created = await on(0, (access) =>
      Effect.flatMap(access.createOrganisation({ name: "Two processes" }), (organisation) =>
        access.createKey(organisation.id, { scopes: ["read"], allowed_ips: [] })
      )
    )
    const first = await on(1, (access) => access.authenticate(created.key, "127.0.0.1"))
    expect(first.key.id).toBe(created.id)
    await on(0, (access) => access.revokeKey(created.id))
    const after = await on(1, (access) => Effect.either(access.authenticate(created.key, "127.0.0.1")))
    expect(after._tag).toBe("Left")
    expect(after._tag === "Left" && after.left._tag).toBe("InvalidApiKey")
  })
})
