/**
 * The webhook storage contract, the outbox: `EventLog.append` writes a delivery for each hook the
 * rule selects, in the event's own unit of work, and old deliveries are purged.
 */
import { Access, Events, Transaction, Webhooks } from "@crm/core"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Runtime from "effect/Runtime"
import fc from "fast-check"
import type { Cases } from "../ContractCases.js"
import { at, Boom, page, type StoragePorts, seed } from "../Fixtures.js"
import { claimAt, created, hookFor, newKey, withHook } from "./Fixtures.js"

export const outboxCases = ({ test }: Cases<StoragePorts>): void => {
  test(
    "append writes one delivery per matching active hook, carrying the envelope as polled",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const repo = yield* Webhooks.WebhookRepository
      const log = yield* Events.EventLog
      const owner = yield* newKey(a.id)
      const matching = hookFor(owner)
      const otherEvent = hookFor(owner, { events: ["deal.won"] })
      const inactive = hookFor(owner, { active: false, disabled_reason: "gone" })
      const elsewhere = hookFor(yield* newKey(b.id))
      for (const hook of [matching, otherEvent, inactive, elsewhere]) yield* repo.insert(hook, 20)

      yield* log.append(a.id, [created("c1"), { event: "task.created", data: { id: "t1" } }, created("c2")], at(5))
      const polled = yield* log.after(a.id, { since: 0n, event: "contact.created", limit: 10 })
      const deliveries = yield* repo.deliveries(owner, matching.id, page(50))
      expect(deliveries.map((delivery) => delivery.event_id)).toEqual(polled.map((event) => event.id).reverse())
      expect(deliveries[0]).toMatchObject({ status: "pending", attempt_count: 0, attempts: [], created_at: at(5) })
      for (const hook of [otherEvent, inactive]) expect(yield* repo.deliveries(owner, hook.id, page(50))).toEqual([])

      const [claim] = yield* claimAt(10)
      expect(claim!.hook.id).toBe(matching.id)
      expect(claim!.deliveries.map((delivery) => delivery.body)).toEqual(polled.map((event) => JSON.stringify(event)))
    })
  )

  test(
    "append records a delivery for exactly the hooks the outbox rule, Webhooks.receives, selects",
    Effect.gen(function* () {
      const { a } = yield* seed
      const repo = yield* Webhooks.WebhookRepository
      const log = yield* Events.EventLog
      const access = yield* Access.AccessRepository
      const run = Runtime.runPromise(yield* Effect.runtime<StoragePorts>())
      const names = ["contact.created", "deal.won", "task.created"] as const
      const subscriptions = fc.array(
        fc.record({
          active: fc.boolean(),
          events: fc.uniqueArray(fc.constantFrom(...names), { minLength: 1 }),
          keyLive: fc.boolean()
        }),
        { minLength: 1, maxLength: 4 }
      )
      const appended = fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 4 })
      // Every run appends to the same organisation: its new events are those after the cursor.
      let cursor = 0n
      const check = (
        wanted: ReadonlyArray<{ active: boolean; events: Array<Events.EventName>; keyLive: boolean }>,
        events: ReadonlyArray<Events.EventName>
      ) =>
        Effect.gen(function* () {
          const hooks = yield* Effect.forEach(wanted, ({ keyLive, ...subscription }) =>
            Effect.gen(function* () {
              const owner = yield* newKey(a.id)
              const hook = hookFor(owner, subscription)
              yield* repo.insert(hook, 20)
              if (!keyLive) yield* access.revokeKey(owner.keyId, at(2))
              return { owner, hook, keyLive }
            })
          )
          yield* log.append(
            a.id,
            events.map((event, n) => ({ event, data: { n } })),
            at(5)
          )
          const fresh = yield* log.after(a.id, { since: cursor, event: undefined, limit: 100 })
          expect(fresh).toHaveLength(events.length)
          cursor = BigInt(fresh[fresh.length - 1]!.id)
          for (const { owner, hook, keyLive } of hooks) {
            const delivered = yield* repo.deliveries(owner, hook.id, page(50))
            const selected = fresh.filter((envelope) => Webhooks.receives(hook, keyLive, envelope.event))
            expect(delivered.map((delivery) => delivery.event_id)).toEqual(
              selected.map((envelope) => envelope.id).reverse()
            )
          }
        })
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(subscriptions, appended, (wanted, events) => run(check(wanted, events))),
          { numRuns: 15 }
        )
      )
    })
  )

  test(
    "a rolled-back unit of work leaves no event and no delivery",
    Effect.gen(function* () {
      const { a } = yield* seed
      const repo = yield* Webhooks.WebhookRepository
      const tx = yield* Transaction.Transaction
      const log = yield* Events.EventLog
      const owner = yield* newKey(a.id)
      const hook = hookFor(owner)
      yield* repo.insert(hook, 20)
      const outcome = yield* tx
        .run(Effect.zipRight(log.append(a.id, [created("c1")], at(5)), Effect.fail(new Boom({ step: "after append" }))))
        .pipe(Effect.either)
      expect(Either.isLeft(outcome)).toBe(true)
      expect(yield* log.after(a.id, { since: 0n, event: undefined, limit: 10 })).toEqual([])
      expect(yield* repo.deliveries(owner, hook.id, page(50))).toEqual([])
      expect(yield* claimAt(10)).toEqual([])
    })
  )

  test(
    "purges deliveries created before a cutoff, with their attempts",
    Effect.gen(function* () {
      const { a, repo, log, owner, hook } = yield* withHook
      yield* log.append(a.id, [created("old")], at(5))
      yield* log.append(a.id, [created("new")], at(50))
      expect(yield* repo.purgeBefore(at(50))).toBe(1)
      const kept = yield* repo.deliveries(owner, hook.id, page(50))
      expect(kept.map((delivery) => delivery.created_at)).toEqual([at(50)])
      expect(yield* repo.purgeBefore(at(50))).toBe(0)
    })
  )
}
