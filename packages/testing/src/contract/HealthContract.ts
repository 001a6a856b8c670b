/**
 * The operator's view of the store, for every adapter: readiness (the store answers, and has
 * every migration of this build) and the gauges read at a metrics scrape (pending webhook
 * deliveries and queued mail with their oldest, the event log's head, the pool's connections).
 */
import { Events, Health, Mail, Webhooks } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { at, type StoragePorts, seed } from "./Fixtures.js"
import { message } from "./OrdersContract.js"
import { created, hookFor, newKey } from "./Webhooks/Fixtures.js"

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test } = contractCases(makeLayer, options)

  describe(`health storage contract: ${name}`, () => {
    test(
      "a fresh store answers and lacks no migration",
      Effect.gen(function* () {
        const probe = yield* Health.StoreProbe
        yield* probe.ping
        expect(yield* probe.missingMigrations).toEqual([])
      })
    )

    test(
      "an empty store has no backlog and an event log head of 0",
      Effect.gen(function* () {
        const gauges = yield* Health.StoreGauges
        expect(yield* gauges.webhookDeliveries).toEqual({ count: 0, oldestAt: null })
        expect(yield* gauges.mail).toEqual({ count: 0, oldestAt: null })
        expect(yield* gauges.eventsHead).toBe(0n)
      })
    )

    test(
      "counts pending deliveries and queued mail across organisations, with when the oldest was created",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const gauges = yield* Health.StoreGauges
        const repo = yield* Webhooks.WebhookRepository
        const log = yield* Events.EventLog
        const outbox = yield* Mail.MailOutbox
        const [hookA, hookB] = [hookFor(yield* newKey(a.id)), hookFor(yield* newKey(b.id))]
        yield* repo.insert(hookA, 20)
        yield* repo.insert(hookB, 20)

        yield* log.append(a.id, [created("c1"), created("c2")], at(5_000))
        yield* log.append(b.id, [created("c3")], at(3_000))
        expect(yield* gauges.webhookDeliveries).toEqual({ count: 3, oldestAt: at(3_000) })
        // Failed deliveries wait for nothing.
        yield* repo.failPending(b.id, hookB.id)
        expect(yield* gauges.webhookDeliveries).toEqual({ count: 2, oldestAt: at(5_000) })

        yield* outbox.enqueue(a.id, message({ created_at: at(7_000) }))
        yield* outbox.enqueue(b.id, message({ created_at: at(2_000) }))
        yield* outbox.enqueue(a.id, message({ created_at: at(1_000), status: "sent", sent_at: at(1_500) }))
        expect(yield* gauges.mail).toEqual({ count: 2, oldestAt: at(2_000) })
      })
    )

    test(
      "the event log's head is the newest event's id, whichever organisation it belongs to",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const gauges = yield* Health.StoreGauges
        const log = yield* Events.EventLog
        yield* log.append(a.id, [created("c1")], at(1_000))
        yield* log.append(b.id, [created("c2"), created("c3")], at(2_000))
        const newest = yield* log.after(b.id, { since: 0n, event: undefined, limit: 10 })
        expect(yield* gauges.eventsHead).toBe(BigInt(newest[newest.length - 1]!.id))
      })
    )

    test(
      "reports the pool's connections on the PostgreSQL server, and none where there is no pool",
      Effect.gen(function* () {
        const connections = yield* (yield* Health.StoreGauges).connections
        if (name === "memory" || name === "pglite") expect(connections).toEqual(Option.none())
        if (name === "postgres") {
          const { total, idle, waiting } = Option.getOrThrow(connections)
          // The pool connected once at start and keeps that connection.
          expect(total).toBeGreaterThanOrEqual(1)
          expect(idle).toBeLessThanOrEqual(total)
          expect(waiting).toBe(0)
        }
      })
    )
  })
}
