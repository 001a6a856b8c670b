/**
 * The rate limiter (`Access.RateLimiter`): a sliding window per key that admits exactly its limit,
 * also under concurrent takes.
 */
import { Access } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { newKey, type StoragePorts, seed, T0 } from "./Fixtures.js"

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`RateLimiter storage contract: ${name}`, () => {
    // The decision alone: the access version it may carry is the access contract's.
    const take = (key: Access.ApiKeyRecord, now: number, limit: number, spend = true, windowMs = 1000) =>
      Effect.flatMap(Access.RateLimiter, (limiter) =>
        limiter.take(key.id, { organisationId: key.organisation_id, now, limit, windowMs, spend })
      ).pipe(Effect.map(({ accessVersion: _, ...decision }) => decision))

    test(
      "admits exactly limit requests, counting down; the next waits for the oldest to leave",
      Effect.gen(function* () {
        const { a } = yield* seed
        const key = yield* newKey(a.id)
        expect(yield* take(key, T0, 3)).toEqual({ admitted: true, remaining: 2, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 100, 3)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 200, 3)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 300, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 700 })
        expect(yield* take(key, T0 + 400, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 600 })
      })
    )

    test(
      "the window slides: a request leaves exactly windowMs after it was admitted, refusals are not counted",
      Effect.gen(function* () {
        const { a } = yield* seed
        const key = yield* newKey(a.id)
        yield* take(key, T0, 3)
        yield* take(key, T0 + 100, 3)
        yield* take(key, T0 + 200, 3)
        expect(yield* take(key, T0 + 500, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 500 })
        expect(yield* take(key, T0 + 999, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 1 })
        expect(yield* take(key, T0 + 1000, 3)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 1001, 3)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 99 })
        expect(yield* take(key, T0 + 1100, 3)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 2050, 3)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 5000, 3)).toEqual({ admitted: true, remaining: 2, retryAfterMs: 0 })
      })
    )

    test(
      "spend: false reports the decision without spending",
      Effect.gen(function* () {
        const { a } = yield* seed
        const key = yield* newKey(a.id)
        for (let i = 0; i < 5; i++) {
          expect(yield* take(key, T0 + i, 2, false)).toEqual({ admitted: true, remaining: 2, retryAfterMs: 0 })
        }
        expect(yield* take(key, T0 + 10, 2)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 20, 2, false)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 30, 2)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 40, 2, false)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 970 })
        expect(yield* take(key, T0 + 1010, 2, false)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 1010, 2)).toEqual({ admitted: true, remaining: 0, retryAfterMs: 0 })
        expect(yield* take(key, T0 + 1011, 2)).toEqual({ admitted: false, remaining: 0, retryAfterMs: 19 })
      })
    )

    test(
      "keys are independent",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const [first, second, other] = [yield* newKey(a.id), yield* newKey(a.id), yield* newKey(b.id)]
        yield* take(first, T0, 2)
        yield* take(first, T0, 2)
        expect((yield* take(first, T0 + 1, 2)).admitted).toBe(false)
        expect(yield* take(second, T0 + 1, 2)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
        expect(yield* take(other, T0 + 1, 2)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
        expect(yield* take(second, T0 + 2, 2, false)).toEqual({ admitted: true, remaining: 1, retryAfterMs: 0 })
      })
    )

    concurrent(
      "200 concurrent takes against a limit of 120 admit exactly 120, each seeing its own remaining",
      Effect.gen(function* () {
        const { a } = yield* seed
        const key = yield* newKey(a.id)
        const decisions = yield* Effect.forEach(
          Array.from({ length: 200 }, (_, i) => i),
          (i) => take(key, T0 + (i % 3), 120, true, 60_000),
          { concurrency: "unbounded" }
        )
        const admitted = decisions.filter((decision) => decision.admitted)
        expect(admitted).toHaveLength(120)
        expect(admitted.map((decision) => decision.remaining).sort((x, y) => x - y)).toEqual(
          Array.from({ length: 120 }, (_, i) => i)
        )
        for (const refused of decisions.filter((decision) => !decision.admitted)) {
          expect(refused.remaining).toBe(0)
          expect(refused.retryAfterMs).toBeGreaterThan(0)
        }
        expect((yield* take(key, T0 + 10, 120, true, 60_000)).admitted).toBe(false)
        expect(yield* take(key, T0 + 10, 120, false, 60_000)).toMatchObject({ admitted: false, remaining: 0 })
      }),
      120_000
    )
  })
}
