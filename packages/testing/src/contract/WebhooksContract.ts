/**
 * The webhook storage contract, for every adapter: subscriptions per key with a hard limit under
 * concurrency, the outbox written by `EventLog.append` in the event's own unit of work, and
 * claims that lease a hook to one claimant at a time until they release it or the lease runs out,
 * skip a hook while its circuit has it paused, and serve the hook waiting on the oldest event first.
 */
import { Access, type Errors, Events, type Organisation, Transaction, Webhooks } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import fc from "fast-check"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { newId, type StoragePorts, seed } from "./Fixtures.js"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const at = (ms: number): string => new Date(T0 + ms).toISOString()
const uuid = (): string => crypto.randomUUID()
const page = (limit: number, offset = 0) => ({ limit, offset })

class Boom extends Data.TaggedError("Boom") {}

export const newKey = (
  organisationId: Organisation.OrganisationId
): Effect.Effect<Webhooks.HookOwner, Errors.StorageError, Access.AccessRepository> =>
  Effect.gen(function* () {
    const key: Access.ApiKeyRecord = {
      id: newId(Access.KeyId),
      organisation_id: organisationId,
      name: null,
      hash: uuid(),
      scopes: ["read", "write"],
      expires_at: null,
      allowed_ips: [],
      revoked_at: null,
      created_at: at(0),
      owner_id: null
    }
    yield* (yield* Access.AccessRepository).insertKey(key)
    return { organisationId, keyId: key.id }
  })

export const hookFor = (
  owner: Webhooks.HookOwner,
  overrides: Partial<Webhooks.HookRecord> = {}
): Webhooks.HookRecord => ({
  id: newId(Webhooks.HookId),
  organisation_id: owner.organisationId,
  key_id: owner.keyId,
  target_url: "https://8.8.8.8/hook",
  events: ["contact.created"],
  active: true,
  disabled_reason: null,
  secret: `whsec_${uuid()}`,
  previous_secret: null,
  previous_secret_expires_at: null,
  failing_since: null,
  unanswered_attempts: 0,
  paused_until: null,
  created_at: at(1),
  updated_at: at(1),
  ...overrides
})

const claimAt = (ms: number, token = uuid(), leaseMs = 60_000, hooks = 10) =>
  Effect.flatMap(Webhooks.WebhookRepository, (repo) =>
    repo.claim({ now: at(ms), leaseUntil: at(ms + leaseMs), token, hooks, perHook: 10 })
  )

export const created = (id: string) => ({ event: "contact.created" as const, data: { id, first_name: "Ann" } })

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`webhook storage contract: ${name}`, () => {
    test(
      "round-trips a hook, visible only to its own key",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Webhooks.WebhookRepository
        const owner = yield* newKey(a.id)
        const other = yield* newKey(a.id)
        const hook = hookFor(owner, { events: ["contact.created", "deal.won"] })
        expect(yield* repo.insert(hook, 20)).toBe(true)
        expect(Option.getOrThrow(yield* repo.get(owner, hook.id))).toEqual(hook)
        expect(Option.isNone(yield* repo.get(other, hook.id))).toBe(true)
        expect(yield* repo.list(other, page(50))).toEqual([])
        expect(yield* repo.keyOrganisation(owner.keyId)).toEqual(Option.some(a.id))
        expect(yield* repo.keyOrganisation(newId(Access.KeyId))).toEqual(Option.none())

        const rotated = {
          ...hook,
          secret: "whsec_new",
          previous_secret: hook.secret,
          previous_secret_expires_at: at(9),
          unanswered_attempts: 4,
          paused_until: at(8)
        }
        yield* repo.update(rotated)
        expect(Option.getOrThrow(yield* repo.getForUpdate(owner, hook.id))).toEqual(rotated)
        expect(yield* repo.remove(other, hook.id)).toBe(false)
        expect(yield* repo.remove(owner, hook.id)).toBe(true)
        expect(Option.isNone(yield* repo.get(owner, hook.id))).toBe(true)
      })
    )

    test(
      "hookOwner names the organisation and key of a hook whose key is live",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Webhooks.WebhookRepository
        const [owner, other] = [yield* newKey(a.id), yield* newKey(b.id)]
        const [hook, elsewhere] = [hookFor(owner), hookFor(other)]
        yield* repo.insert(hook, 20)
        yield* repo.insert(elsewhere, 20)
        expect(yield* repo.hookOwner(hook.id)).toEqual(Option.some(owner))
        expect(yield* repo.hookOwner(elsewhere.id)).toEqual(Option.some(other))
        expect(yield* repo.hookOwner(newId(Webhooks.HookId))).toEqual(Option.none())
        yield* (yield* Access.AccessRepository).revokeKey(owner.keyId, at(5))
        expect(yield* repo.hookOwner(hook.id)).toEqual(Option.none())
        expect(yield* repo.remove(other, elsewhere.id)).toBe(true)
        expect(yield* repo.hookOwner(elsewhere.id)).toEqual(Option.none())
      })
    )

    concurrent(
      "25 concurrent inserts against a limit of 20 store exactly 20",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Webhooks.WebhookRepository
        const tx = yield* Transaction.Transaction
        const owner = yield* newKey(a.id)
        const results = yield* Effect.forEach(
          Array.from({ length: 25 }, () => hookFor(owner)),
          (hook) => tx.run(repo.insert(hook, 20)),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Boolean)).toHaveLength(20)
        expect(yield* repo.list(owner, page(200))).toHaveLength(20)
      })
    )

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
          .run(Effect.zipRight(log.append(a.id, [created("c1")], at(5)), Effect.fail(new Boom())))
          .pipe(Effect.either)
        expect(Either.isLeft(outcome)).toBe(true)
        expect(yield* log.after(a.id, { since: 0n, event: undefined, limit: 10 })).toEqual([])
        expect(yield* repo.deliveries(owner, hook.id, page(50))).toEqual([])
        expect(yield* claimAt(10)).toEqual([])
      })
    )

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
      "purges deliveries created before a cutoff, with their attempts",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Webhooks.WebhookRepository
        const log = yield* Events.EventLog
        const owner = yield* newKey(a.id)
        const hook = hookFor(owner)
        yield* repo.insert(hook, 20)
        yield* log.append(a.id, [created("old")], at(5))
        yield* log.append(a.id, [created("new")], at(50))
        expect(yield* repo.purgeBefore(at(50))).toBe(1)
        const kept = yield* repo.deliveries(owner, hook.id, page(50))
        expect(kept.map((delivery) => delivery.created_at)).toEqual([at(50)])
        expect(yield* repo.purgeBefore(at(50))).toBe(0)
      })
    )

    test(
      "an attempt updates the delivery, the failure streak and the hook's state in one write; due rules hold",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Webhooks.WebhookRepository
        const log = yield* Events.EventLog
        const owner = yield* newKey(a.id)
        const hook = hookFor(owner)
        yield* repo.insert(hook, 20)
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
        yield* repo.requeue(first!.id, at(6_000))
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
        const { a } = yield* seed
        const repo = yield* Webhooks.WebhookRepository
        const log = yield* Events.EventLog
        const owner = yield* newKey(a.id)
        const hook = hookFor(owner)
        yield* repo.insert(hook, 20)
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
        yield* repo.failPending(disabled.id)
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
  })
}
