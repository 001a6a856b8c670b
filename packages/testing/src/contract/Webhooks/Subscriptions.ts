/** The webhook storage contract, subscriptions: a hook per key, its owner, the limit under concurrency. */
import { Access, Transaction, Webhooks } from "@crm/core"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Cases } from "../ContractCases.js"
import { at, newId, page, type StoragePorts, seed } from "../Fixtures.js"
import { hookFor, newKey } from "./Fixtures.js"

export const subscriptionCases = ({ test, concurrent }: Cases<StoragePorts>): void => {
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
}
