/**
 * The key cache's one rule, against a model: an entry answers only while it is at least as new as
 * every access version seen of its organisation (by another entry's read, a write of this process,
 * or a request's budget statement, `atLeast`), and younger than its maximum age; and the keys'
 * lives spread below that age, so that keys first used together are not all read again together.
 */
import { createHash } from "node:crypto"
import type { Access, Settings } from "@crm/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { KeyCache, type Versioned } from "../src/internal/KeyCache.js"

const ORGS = ["o1", "o2"]
const HASHES = ["h1", "h2", "h3", "h4"]
const MAX_AGE = 1000

const found = (hash: string, organisation: string, version: number): Versioned => ({
  key: { id: `key-${hash}`, organisation_id: organisation } as unknown as Access.ApiKeyRecord,
  organisation: { id: organisation, name: `${organisation}@${version}` } as unknown as Settings.Organisation,
  access_version: version
})

type Step =
  | { readonly kind: "put"; readonly hash: string; readonly org: string; readonly version: number }
  | { readonly kind: "raise"; readonly org: string; readonly version: number }
  | { readonly kind: "get"; readonly hash: string; readonly atLeast: number | undefined }
  | { readonly kind: "wait"; readonly ms: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("put" as const),
    hash: fc.constantFrom(...HASHES),
    org: fc.constantFrom(...ORGS),
    version: fc.nat(5)
  }),
  fc.record({ kind: fc.constant("raise" as const), org: fc.constantFrom(...ORGS), version: fc.nat(5) }),
  fc.record({
    kind: fc.constant("get" as const),
    hash: fc.constantFrom(...HASHES),
    atLeast: fc.option(fc.nat(5), { nil: undefined })
  }),
  fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 600 }) })
)

describe("KeyCache", () => {
  it("answers an entry only while no newer version of its organisation was seen, and within its age", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const cache = new KeyCache({ capacity: 100, maxAgeMs: MAX_AGE, spread: 0 })
        const newest = new Map<string, number>()
        const stored = new Map<string, { value: Versioned; at: number }>()
        let now = 0
        const see = (org: string, version: number) => newest.set(org, Math.max(newest.get(org) ?? 0, version))
        for (const s of steps) {
          if (s.kind === "wait") now += s.ms
          else if (s.kind === "raise") {
            cache.raise(s.org, s.version)
            see(s.org, s.version)
          } else if (s.kind === "put") {
            const value = found(s.hash, s.org, s.version)
            cache.put(s.hash, value, now)
            if (s.version >= (newest.get(s.org) ?? 0)) stored.set(s.hash, { value, at: now })
            see(s.org, s.version)
          } else {
            const entry = stored.get(s.hash)
            if (entry !== undefined && s.atLeast !== undefined) see(entry.value.organisation.id, s.atLeast)
            const fresh =
              entry !== undefined &&
              entry.value.access_version >= (newest.get(entry.value.organisation.id) ?? 0) &&
              now - entry.at < MAX_AGE
            const got = cache.get(s.hash, now, s.atLeast)
            expect(got?.key.id).toBe(fresh ? entry.value.key.id : undefined)
            expect(got?.access_version).toBe(fresh ? entry.value.access_version : undefined)
            if (!fresh) stored.delete(s.hash)
          }
        }
      }),
      { numRuns: 500 }
    )
  })

  it("keeps one decoded organisation per version, and evicts the least recently used entry past capacity", () => {
    const cache = new KeyCache({ capacity: 2, maxAgeMs: MAX_AGE, spread: 0 })
    const first = found("h1", "o1", 3)
    cache.put("h1", first, 0)
    expect(cache.organisation("o1", 3)).toBe(first.organisation)
    expect(cache.organisation("o1", 2)).toBeUndefined()
    cache.put("h2", found("h2", "o1", 3), 0)
    cache.get("h1", 1)
    cache.put("h3", found("h3", "o2", 1), 1)
    expect(cache.size).toBe(2)
    expect(cache.get("h2", 2)).toBeUndefined()
    expect(cache.get("h1", 2)?.key.id).toBe("key-h1")
    cache.raise("o1", 4)
    expect(cache.organisation("o1", 3)).toBeUndefined()
    expect(cache.get("h1", 2)).toBeUndefined()
  })

  it("gives each key a life between (1 - spread) and all of the maximum age, spread over that range", () => {
    const hashes = Array.from({ length: 1000 }, (_, n) => createHash("sha256").update(`key ${n}`).digest("hex"))
    const alive = (hash: string, at: number) => {
      const cache = new KeyCache({ capacity: 10, maxAgeMs: MAX_AGE, spread: 0.5 })
      cache.put(hash, found(hash, "o1", 1), 0)
      return cache.get(hash, at) !== undefined
    }
    fc.assert(
      fc.property(fc.constantFrom(...hashes), fc.string(), (hash, other) => {
        for (const key of [hash, other]) {
          expect(alive(key, MAX_AGE / 2 - 1)).toBe(true)
          expect(alive(key, MAX_AGE)).toBe(false)
        }
      })
    )
    // Uniform over the range: about half are still alive three quarters of the way through it.
    const share = hashes.filter((hash) => alive(hash, (MAX_AGE * 3) / 4)).length / hashes.length
    expect(share).toBeGreaterThan(0.4)
    expect(share).toBeLessThan(0.6)
  })
})
