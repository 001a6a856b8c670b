/**
 * A store that cannot be reached, on every store: its ports fail as the PostgreSQL adapter's do
 * when the server is down (`StorageUnavailable`), behind a switch the test turns. Requests that
 * need the store answer 503 `service_unavailable` with Retry-After, the outage is logged once and
 * its end once, idempotency keys of refused requests are not kept, and readiness follows the store.
 * (outage.pg.test.ts takes a real PostgreSQL server away from the real adapter.)
 */
import { Errors, Transaction } from "@crm/core"
import type { Storage } from "@crm/server"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { checkedFetch } from "../support/responseCheck.js"
import { startServer, type TestServer } from "../support/server.js"
import { storages } from "../support/storages.js"

interface Switch {
  /** Which ports (by tag key) fail; none while the store is reachable. */
  blocked: (tagKey: string) => boolean
}

const reachable = (_tagKey: string) => false
const everything = (_tagKey: string) => true

const unavailable = new Errors.StorageUnavailable({ message: "Test.port: connect ECONNREFUSED 127.0.0.1:5432" })

const gated = (tagKey: string, port: object, on: Switch): object => {
  const gate = Effect.suspend(() => (on.blocked(tagKey) ? Effect.fail(unavailable) : Effect.void))
  return Object.fromEntries(
    Object.entries(port).map(([name, member]) => {
      if (Effect.isEffect(member)) return [name, Effect.zipRight(gate, member)]
      if (typeof member !== "function") return [name, member]
      return [
        name,
        (...args: Array<unknown>) => {
          const result = member.apply(port, args)
          return Effect.isEffect(result) ? Effect.zipRight(gate, result) : result
        }
      ]
    })
  )
}

/** Every port of the store behind the switch; what is not a port (a driver's client) is left alone. */
const behind = (on: Switch, storage: Layer.Layer<Storage.StoragePorts, unknown>) =>
  Layer.map(storage, (context) => {
    const ports = new Map<string, unknown>()
    for (const [key, service] of context.unsafeMap) {
      const plain =
        typeof service === "object" && service !== null && Object.getPrototypeOf(service) === Object.prototype
      ports.set(key, plain ? gated(key, service, on) : service)
    }
    return Context.unsafeMake(ports) as Context.Context<Storage.StoragePorts>
  })

interface Line {
  readonly level: string
  readonly text: string
}

const textOf = (message: unknown): string =>
  (Array.isArray(message) ? message : [message])
    .map((part) => (typeof part === "string" ? part : JSON.stringify(part)))
    .join(" ")

for (const storage of storages) {
  describe(`an unreachable store [${storage.name}]`, () => {
    const on: Switch = { blocked: reachable }
    const lines: Array<Line> = []
    let server: TestServer | undefined
    const logged = (level: string, fragment: string) =>
      lines.filter((line) => line.level === level && line.text.startsWith(fragment))

    beforeAll(async () => {
      server = await startServer(behind(on, storage.fresh()), {
        logger: Logger.make(({ logLevel, message }) => {
          lines.push({ level: logLevel.label, text: textOf(message) })
        })
      })
    })
    // A test that fails half-way leaves the next one a store it can reach.
    afterEach(() => {
      on.blocked = reachable
    })
    afterAll(async () => {
      await server?.close()
    })

    it("answers 503 service_unavailable with Retry-After, logs the outage once with its cause and its end once", async () => {
      const { client } = await server!.tenant()
      expect((await client.get("/contacts")).status).toBe(200)
      lines.length = 0

      on.blocked = everything
      const refused = [
        await client.get("/contacts", { "x-request-id": "during-the-outage" }),
        await client.post("/contacts", { first_name: "Ada" }),
        await client.get("/me"),
        ...(await Promise.all(Array.from({ length: 5 }, () => client.get("/contacts"))))
      ]
      for (const answer of refused) {
        expect(answer.status).toBe(503)
        expect(answer.headers.get("retry-after")).toBe("5")
        expect(answer.body).toEqual({
          error: "service_unavailable",
          detail: expect.any(String),
          request_id: answer.headers.get("x-request-id")
        })
        // The cause is the operator's business, not the client's.
        expect(answer.text).not.toContain("ECONNREFUSED")
      }
      expect(refused[0]!.headers.get("x-request-id")).toBe("during-the-outage")
      const began = logged("WARN", "the database cannot be reached")
      expect(began).toHaveLength(1)
      expect(began[0]!.text).toContain("ECONNREFUSED")
      expect(logged("ERROR", "request failed")).toEqual([])

      on.blocked = reachable
      // A request that does not need the store says nothing about it.
      expect((await server!.anonymous.get("/openapi.json")).status).toBe(200)
      expect(logged("INFO", "the database answers again")).toHaveLength(0)
      expect((await client.get("/contacts")).status).toBe(200)
      expect((await client.get("/contacts")).status).toBe(200)
      const ended = logged("INFO", "the database answers again")
      expect(ended).toHaveLength(1)
      expect(ended[0]!.text).toContain('"requests_refused":8')

      // The next outage is logged again.
      on.blocked = everything
      expect((await client.get("/contacts")).status).toBe(503)
      expect(logged("WARN", "the database cannot be reached")).toHaveLength(2)
      on.blocked = reachable
      expect((await client.get("/contacts")).status).toBe(200)
      expect(logged("INFO", "the database answers again")).toHaveLength(2)
    })

    it("keeps no idempotency key of a refused request: the same key runs afresh once the store is back", async () => {
      const { client } = await server!.tenant()
      const key = { "idempotency-key": "during-outage" }
      // The store drops after the request was admitted: its unit of work cannot begin.
      on.blocked = (tagKey) => tagKey === Transaction.Transaction.key
      const refused = await client.post("/contacts", { first_name: "Grace" }, key)
      expect(refused.status).toBe(503)
      expect(refused.headers.get("retry-after")).toBe("5")
      on.blocked = reachable

      const first = await client.post("/contacts", { first_name: "Grace" }, key)
      expect(first.status).toBe(201)
      expect(first.headers.get("idempotency-replayed")).toBeNull()
      const again = await client.post("/contacts", { first_name: "Grace" }, key)
      expect(again.headers.get("idempotency-replayed")).toBe("true")
      expect(again.body.id).toBe(first.body.id)
      expect((await client.get("/contacts?q=Grace")).body.data).toHaveLength(1)
    })

    it("is not ready while the store cannot be reached, and ready again when it can; alive throughout", async () => {
      const ready = await checkedFetch(`${server!.url}/readyz`)
      expect(ready.status).toBe(200)
      // A store with a standby (CRM_TEST_READ_ONLY_STANDBY) names it too.
      expect(await ready.json()).toMatchObject({ status: "ok" })

      on.blocked = everything
      const notReady = await checkedFetch(`${server!.url}/readyz`)
      expect(notReady.status).toBe(503)
      expect(notReady.headers.get("retry-after")).toBe("5")
      expect(await notReady.json()).toMatchObject({ error: "service_unavailable" })
      const alive = await checkedFetch(`${server!.url}/healthz`)
      expect(alive.status).toBe(200)
      expect(await alive.json()).toEqual({ status: "ok" })

      on.blocked = reachable
      const back = await checkedFetch(`${server!.url}/readyz`)
      expect(back.status).toBe(200)
      expect(await back.json()).toMatchObject({ status: "ok" })
    })
  })
}

for (const storage of storages) {
  describe(`workers meeting an unreachable store [${storage.name}]`, () => {
    const WEBHOOKS = "@crm/core/WebhookRepository"
    const MAIL = "@crm/core/MailOutbox"
    let down = false
    const asked = new Map<string, number>()
    const on: Switch = {
      blocked: (tagKey) => {
        asked.set(tagKey, (asked.get(tagKey) ?? 0) + 1)
        return down
      }
    }
    const lines: Array<Line> = []
    let server: TestServer | undefined
    const logged = (level: string, fragment: string) =>
      lines.filter((line) => line.level === level && line.text.startsWith(fragment))
    const asks = (tagKey: string) => asked.get(tagKey) ?? 0
    const until = async (condition: () => boolean) => {
      while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    // Until each worker has been to the store `rounds` more times.
    const rounds = async (rounds: number) => {
      const webhooks = asks(WEBHOOKS)
      const mail = asks(MAIL)
      await until(() => asks(WEBHOOKS) >= webhooks + rounds && asks(MAIL) >= mail + rounds)
    }

    beforeAll(async () => {
      server = await startServer(behind(on, storage.fresh()), {
        webhooks: { pollIntervalMs: 10 },
        mail: { every: "10 millis" },
        logger: Logger.make(({ logLevel, message }) => {
          lines.push({ level: logLevel.label, text: textOf(message) })
        })
      })
    })
    afterAll(async () => {
      down = false
      await server?.close()
    })

    it("log an outage once when it begins and once when it ends, not at every poll", async () => {
      await rounds(1)
      lines.length = 0
      down = true
      await rounds(5)
      for (const worker of ["webhook delivery", "mail delivery"]) {
        const began = logged("WARN", `${worker}: the database cannot be reached`)
        expect(began).toHaveLength(1)
        expect(began[0]!.text).toContain("ECONNREFUSED")
      }
      expect(lines.filter((line) => line.level !== "INFO")).toHaveLength(2)

      down = false
      await until(() => logged("INFO", "mail delivery: the database answers again").length > 0)
      await until(() => logged("INFO", "webhook delivery: the database answers again").length > 0)
      await rounds(5)
      for (const worker of ["webhook delivery", "mail delivery"]) {
        expect(logged("WARN", `${worker}: the database cannot be reached`)).toHaveLength(1)
        const ended = logged("INFO", `${worker}: the database answers again`)
        expect(ended).toHaveLength(1)
        expect(ended[0]!.text).toMatch(/"rounds_refused":([5-9]|\d\d+)/)
      }
      expect(lines.filter((line) => line.level !== "INFO")).toHaveLength(2)
    })
  })
}
