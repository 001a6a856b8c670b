/**
 * Model-based test of the rate limiter port on every store: random sequences of requests over
 * a few keys, each decision compared with a plain list-of-timestamps model of an exact
 * rolling window. Any drift (fixed windows, off-by-one at the edge, spending on a report) fails.
 */
import { Access, Ids, Organisation } from "@crm/core"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Built, build } from "../support/ports.js"
import { storages } from "../support/storages.js"

const LIMIT = 3
const WINDOW = 1_000

interface Step {
  readonly advance: number
  readonly key: number
  readonly spend: boolean
}

const step = fc.record({
  advance: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 }), fc.constant(WINDOW)),
  key: fc.integer({ min: 0, max: 2 }),
  spend: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) })
})

const expected = (hits: Array<number>, now: number, spend: boolean) => {
  const live = hits.filter((t) => t > now - WINDOW)
  const admitted = live.length < LIMIT
  if (admitted && spend) live.push(now)
  return {
    hits: live,
    decision: {
      admitted,
      remaining: Math.max(0, LIMIT - live.length),
      retryAfterMs: admitted ? 0 : live[0]! + WINDOW - now
    }
  }
}

for (const storage of storages) {
  describe(`RateLimiter model [${storage.name}]`, () => {
    let ports: Built<Access.RateLimiter> | undefined
    beforeAll(async () => {
      ports = await build(storage, (layer) => layer)
    })
    afterAll(async () => ports?.close())

    it("decides exactly like an exact rolling window", async () => {
      let run = 0
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps: Array<Step>) => {
          run++
          const model = new Map<number, Array<number>>()
          const keyIds = [
            Ids.brand(Access.KeyId, crypto.randomUUID()),
            Ids.brand(Access.KeyId, crypto.randomUUID()),
            Ids.brand(Access.KeyId, crypto.randomUUID())
          ]
          const organisationId = Ids.brand(Organisation.OrganisationId, crypto.randomUUID())
          let now = 1_000_000 + run * 10_000_000
          for (const s of steps) {
            now += s.advance
            const want = expected(model.get(s.key) ?? [], now, s.spend)
            model.set(s.key, want.hits)
            const { accessVersion: _, ...got } = await ports!.run(
              Effect.flatMap(Access.RateLimiter, (limiter) =>
                limiter.take(keyIds[s.key]!, { organisationId, now, limit: LIMIT, windowMs: WINDOW, spend: s.spend })
              )
            )
            expect(got).toEqual(want.decision)
          }
        }),
        { numRuns: 40 }
      )
    })
  })
}
