/**
 * The webhook storage contract, claims: a claim leases a hook to one claimant until it is released
 * or the lease runs out; attempts update the delivery and the hook's circuit in one write; a paused
 * or disabled hook is not claimed; the hook waiting on the oldest event is served first.
 */
import { Events, Webhooks } from "@crm/core"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Cases } from "../ContractCases.js"
import { at, page, type StoragePorts, seed, uuid } from "../Fixtures.js"
import { claimAt, created, hookFor, newKey, withHook } from "./Fixtures.js"

export const claimCases = ({ test, concurrent }: Cases<StoragePorts>): void => {
  concurrent(
    "a claim leases the hook: concurrent claimants split the hooks, none twice, until release or expiry",
    Effect.gen(function* () {
      const { a } = yield* seed
      const repo = yield* Webhooks.WebhookRepository
      const log = yield* Events.EventLog
      const hooks = yield* Effect.forEach(Array.from({ length: 6 }), () =>
        Effect.flatMap(newKey(a.id), (owner) => {
          const hook = hookFor(owner)
          return Effect.as(repo.insert(hook, 20), hook)
        })
      )
      yield* log.append(a.id, [created("c1")], at(5))

      const claims = yield* Effect.forEach(Array.from({ length: 8 }), () => claimAt(10), {
        concurrency: "unbounded"
      })
      const claimed = claims.flat().map((claim) => claim.hook.id)
      expect([...claimed].sort()).toEqual(hooks.map((hook) => hook.id).sort())

      // Leased: nobody else gets them until the lease runs out...
      expect(yield* claimAt(20_000)).toEqual([])
      const [mine] = claims.find((claim) => claim.length > 0)!
      const token = uuid()
      const again = yield* claimAt(70_001, token)
      expect(again).toHaveLength(6)
      // ...or its holder releases it (a stale token releases nothing).
      yield* repo.release(mine!.hook.id, uuid())
      expect(yield* claimAt(70_002)).toEqual([])
      yield* repo.release(mine!.hook.id, token)
      expect((yield* claimAt(70_003)).map((claim) => claim.hook.id)).toEqual([mine!.hook.id])
    })
  )

  test(
    "an attempt updates the delivery, the failure streak and the hook's state in one write; due rules hold",
    Effect.gen(function* () {
      const { a, repo, log, owner, hook } = yield* withHook
      yield* log.append(a.id, [created("c1"), created("c2"), created("c3")], at(5))
      const ids = (claims: ReadonlyArray<Webhooks.Claim>) => claims.flatMap((c) => c.deliveries.map((d) => d.id))
      const token = uuid()
      const [claim] = yield* claimAt(10, token)
      expect(claim!.deliveries.map((delivery) => delivery.attempt_count)).toEqual([0, 0, 0])
      const [first, second, third] = claim!.deliveries
      const attempt = { attempted_at: at(10), status_code: 500, duration_ms: 12, response_excerpt: "no", error: null }
      const recorded = {
        attempt,
        attemptCount: 1,
        hookId: hook.id,
        organisationId: a.id,
        failingSince: at(10),
        unansweredAttempts: 0,
        pausedUntil: null
      }
      yield* repo.recordAttempt({
        ...recorded,
        deliveryId: first!.id,
        status: "pending",
        nextAttemptAt: at(5_010),
        disable: null,
        at: at(10)
      })
      yield* repo.release(hook.id, token)

      // First attempts are always due; a retry from its next_attempt_at on.
      const early = uuid()
      expect(ids(yield* claimAt(5_009, early))).toEqual([second!.id, third!.id])
      yield* repo.release(hook.id, early)
      const onTime = uuid()
      const [due] = yield* claimAt(5_010, onTime)
      expect(due!.deliveries.map((delivery) => [delivery.id, delivery.attempt_count])).toEqual([
        [first!.id, 1],
        [second!.id, 0],
        [third!.id, 0]
      ])

      yield* repo.recordAttempt({
        ...recorded,
        deliveryId: second!.id,
        attempt: { ...attempt, status_code: 410 },
        status: "failed",
        nextAttemptAt: null,
        disable: "the target answered 410 Gone",
        at: at(5_011)
      })
      yield* repo.release(hook.id, onTime)
      const stored = Option.getOrThrow(yield* repo.get(owner, hook.id))
      expect(stored).toMatchObject({
        active: false,
        disabled_reason: "the target answered 410 Gone",
        failing_since: at(10),
        updated_at: at(5_011),
        secret: hook.secret
      })
      // Disabling fails what was still pending, and a disabled hook is not claimed.
      const deliveries = yield* repo.deliveries(owner, hook.id, page(50))
      expect(deliveries.map((delivery) => [delivery.id, delivery.status, delivery.attempts.length])).toEqual([
        [third!.id, "failed", 0],
        [second!.id, "failed", 1],
        [first!.id, "failed", 1]
      ])
      expect(deliveries[2]!.attempts).toEqual([attempt])
      expect(yield* claimAt(1_000_000)).toEqual([])

      yield* repo.update({ ...stored, active: true, disabled_reason: null })
      // Another organisation's id finds nothing: the delivery stays failed.
      yield* repo.requeue(uuid() as typeof hook.organisation_id, first!.id, at(6_000))
      expect(Option.getOrThrow(yield* repo.delivery(owner, hook.id, first!.id)).status).toBe("failed")
      yield* repo.requeue(hook.organisation_id, first!.id, at(6_000))
      expect(Option.getOrThrow(yield* repo.delivery(owner, hook.id, first!.id))).toMatchObject({
        status: "pending",
        next_attempt_at: at(6_000)
      })
      expect(yield* claimAt(5_999)).toEqual([])
      expect(ids(yield* claimAt(6_000))).toEqual([first!.id])
      expect(Option.isNone(yield* repo.delivery(owner, hook.id, uuid()))).toBe(true)
    })
  )

  test(
    "an attempt stores the hook's circuit; a paused hook is not claimed before its pause ends",
    Effect.gen(function* () {
      const { a, repo, log, owner, hook } = yield* withHook
      yield* log.append(a.id, [created("c1"), created("c2")], at(5))
      const token = uuid()
      const [claim] = yield* claimAt(10, token)
      // The owner rotates the secret while the attempt is in flight.
      yield* repo.update({ ...hook, secret: "whsec_rotated", updated_at: at(9) })
      const unanswered = {
        deliveryId: claim!.deliveries[0]!.id,
        attempt: { attempted_at: at(10), status_code: null, duration_ms: 300, response_excerpt: null, error: "x" },
        status: "pending" as const,
        attemptCount: 1,
        nextAttemptAt: at(5_010),
        hookId: hook.id,
        organisationId: a.id,
        failingSince: at(10),
        unansweredAttempts: 3,
        pausedUntil: at(60_000),
        disable: null,
        at: at(10)
      }
      const after = Option.getOrThrow(yield* repo.recordAttempt(unanswered))
      yield* repo.release(hook.id, token)
      expect(after).toEqual({
        ...hook,
        secret: "whsec_rotated",
        updated_at: at(9),
        unanswered_attempts: 3,
        paused_until: at(60_000),
        failing_since: at(10)
      })
      expect(Option.getOrThrow(yield* repo.get(owner, hook.id))).toEqual(after)
      // The second delivery's first attempt is due, and the first's retry: the pause holds both.
      expect(yield* claimAt(59_999)).toEqual([])
      const [resumed] = yield* claimAt(60_000)
      expect(resumed!.hook).toEqual(after)
      expect(resumed!.deliveries.map((delivery) => delivery.id)).toEqual(claim!.deliveries.map((d) => d.id))

      // A hook deleted while its attempt was in flight: nothing is recorded and none comes back.
      yield* repo.remove(owner, hook.id)
      expect(yield* repo.recordAttempt(unanswered)).toEqual(Option.none())
    })
  )

  test(
    "claims the hooks waiting on the oldest due event first",
    Effect.gen(function* () {
      const { a } = yield* seed
      const repo = yield* Webhooks.WebhookRepository
      const log = yield* Events.EventLog
      const owner = yield* newKey(a.id)
      const names = ["deal.lost", "task.created", "company.created", "contact.created", "deal.won"] as const
      const hooks = names.map((name) => hookFor(owner, { events: [name] }))
      for (const hook of hooks) yield* repo.insert(hook, 20)
      // One event each, in the order named: each hook's oldest due event is its only one.
      for (const [n, name] of names.entries()) yield* log.append(a.id, [{ event: name, data: { n } }], at(5 + n))
      const claimOne = Effect.map(claimAt(10, uuid(), 60_000, 1), (claims) => claims.map((claim) => claim.hook.id))
      for (const hook of hooks) expect(yield* claimOne).toEqual([hook.id])
      expect(yield* claimOne).toEqual([])
    })
  )

  test(
    "fails what a disabled hook still has pending, and nothing of other hooks",
    Effect.gen(function* () {
      const { a } = yield* seed
      const repo = yield* Webhooks.WebhookRepository
      const log = yield* Events.EventLog
      const owner = yield* newKey(a.id)
      const disabled = hookFor(owner)
      const other = hookFor(owner)
      for (const hook of [disabled, other]) yield* repo.insert(hook, 20)
      yield* log.append(a.id, [created("c1"), created("c2")], at(5))
      const token = uuid()
      const claims = yield* claimAt(10, token)
      const sent = claims.find((claim) => claim.hook.id === disabled.id)!.deliveries[0]!
      yield* repo.recordAttempt({
        deliveryId: sent.id,
        attempt: { attempted_at: at(10), status_code: 200, duration_ms: 5, response_excerpt: "", error: null },
        status: "succeeded",
        attemptCount: 1,
        nextAttemptAt: null,
        hookId: disabled.id,
        organisationId: a.id,
        failingSince: null,
        unansweredAttempts: 0,
        pausedUntil: null,
        disable: null,
        at: at(10)
      })
      yield* repo.failPending(disabled.organisation_id, disabled.id)
      const statuses = (hook: Webhooks.HookRecord) =>
        Effect.map(repo.deliveries(owner, hook.id, page(50)), (rows) =>
          rows.map((row) => [row.status, row.next_attempt_at])
        )
      expect(yield* statuses(disabled)).toEqual([
        ["failed", null],
        ["succeeded", null]
      ])
      expect((yield* statuses(other)).map(([status]) => status)).toEqual(["pending", "pending"])
    })
  )
}
