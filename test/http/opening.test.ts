/**
 * The server listens before its store is open (`Opening`): liveness and the OpenAPI document are
 * answered at once, readiness is 503 until the store is open and 200 after, and a request that
 * needs the store waits for it, then is served, or gets a 503 with Retry-After once its wait ends.
 */
import { Server } from "@crm/server"
import * as StorageMemory from "@crm/storage-memory"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { checkedFetch } from "../support/responseCheck.js"
import { ADMIN_TOKEN, freePort, TEST_PASSWORD_COST } from "../support/server.js"

/** The shipped composition over a memory store that opens when the test says so. */
const startOpening = async (options: { readonly openingWait?: Duration.DurationInput } = {}) => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const storeOpens = Effect.runSync(Deferred.make<void>())
  const storage = Layer.unwrapEffect(Effect.as(Deferred.await(storeOpens), StorageMemory.layer))
  const scope = Effect.runSync(Scope.make())
  const building = Effect.runFork(
    Layer.buildWithScope(
      Server.layer(
        {
          port,
          host: "127.0.0.1",
          adminToken: Option.some(Redacted.make(ADMIN_TOKEN)),
          trustedProxies: [],
          bootstrap: false,
          rateLimit: 120,
          passwordCost: TEST_PASSWORD_COST,
          webhooks: { worker: false },
          ...(options.openingWait === undefined ? {} : { openingWait: options.openingWait })
        },
        storage
      ).pipe(Layer.provide(Logger.minimumLogLevel(LogLevel.Error))),
      scope
    )
  )
  // Listening is the first thing the server does; the store waits for `open` below.
  for (let tries = 0; ; tries++) {
    const up = await fetch(`${url}/healthz`).then(
      (response) => response.status,
      () => 0
    )
    if (up === 200) break
    if (tries > 500) throw new Error("the server never listened")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return {
    url,
    open: async () => {
      Effect.runSync(Deferred.succeed(storeOpens, undefined))
      await Effect.runPromise(Fiber.join(building))
    },
    close: async () => {
      await Effect.runPromise(Fiber.interrupt(building))
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }

describe("a server whose store is still opening", () => {
  let close: (() => Promise<void>) | undefined
  afterEach(async () => {
    await close?.()
    close = undefined
  })

  it("serves liveness and the OpenAPI document at once, and readiness 503 until the store is open, 200 after", async () => {
    const server = await startOpening()
    close = server.close

    const alive = await checkedFetch(`${server.url}/healthz`)
    expect(alive.status).toBe(200)
    expect(await alive.json()).toEqual({ status: "ok" })
    const document = await checkedFetch(`${server.url}/api/v1/openapi.json`)
    expect(document.status).toBe(200)
    expect(((await document.json()) as { openapi: string }).openapi).toMatch(/^3\.1/)

    const notReady = await checkedFetch(`${server.url}/readyz`, { headers: { "x-request-id": "opening" } })
    expect(notReady.status).toBe(503)
    expect(notReady.headers.get("retry-after")).toBe("1")
    expect(notReady.headers.get("x-request-id")).toBe("opening")
    expect(await notReady.json()).toEqual({
      error: "service_unavailable",
      detail: expect.stringContaining("opening"),
      request_id: "opening"
    })

    await server.open()
    const ready = await checkedFetch(`${server.url}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: "ok" })
  })

  it("holds a request that needs the store until it is open, then serves it", async () => {
    const server = await startOpening()
    close = server.close

    let settled = false
    const created = checkedFetch(`${server.url}/admin/v1/organisations`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify({ name: "Opened" })
    }).finally(() => {
      settled = true
    })
    // Still waiting a good while later: neither answered nor refused while the store opens.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(settled).toBe(false)

    await server.open()
    const answer = await created
    expect(answer.status).toBe(201)
    expect(((await answer.json()) as { name: string }).name).toBe("Opened")
    // Served by the app itself from now on: what was created is there.
    const listed = await checkedFetch(`${server.url}/admin/v1/organisations`, { headers: admin })
    expect(listed.status).toBe(200)
    expect(JSON.stringify(await listed.json())).toContain("Opened")
  })

  it("answers 503 service_unavailable with Retry-After when the store is not open by the end of the wait", async () => {
    const server = await startOpening({ openingWait: "200 millis" })
    close = server.close

    const started = Date.now()
    const refused = await checkedFetch(`${server.url}/api/v1/me`, {
      headers: { authorization: "Bearer mck_whatever", "x-request-id": "too-soon" }
    })
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
    expect(refused.status).toBe(503)
    expect(refused.headers.get("retry-after")).toBe("1")
    expect(await refused.json()).toEqual({
      error: "service_unavailable",
      detail: expect.stringContaining("opening"),
      request_id: "too-soon"
    })
    // A page or a path the routes do not know waits as well, and is told the same.
    const page = await fetch(`${server.url}/docs`)
    expect(page.status).toBe(503)
    expect(page.headers.get("retry-after")).toBe("1")
  })
})
