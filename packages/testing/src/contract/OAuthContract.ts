/**
 * The authorization server's port (`Access.OAuthStore`): records by model and id, found by id, uid
 * or user code until they lapse, used once, removed one by one or a grant at a time, claimed by the
 * first writer, purged once lapsed; every change undone with a unit of work that fails.
 */
import { Access, Transaction } from "@crm/core"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { contractSuite } from "./ContractCases.js"
import { at, Boom, uuid } from "./Fixtures.js"

export const oauthRecord = (model: string, overrides: Partial<Access.OAuthRecord> = {}): Access.OAuthRecord => ({
  model,
  id: uuid(),
  payload: { kind: model },
  grant_id: null,
  uid: null,
  user_code: null,
  expires_at: null,
  consumed_at: null,
  ...overrides
})

/** Long after every time the cases use. */
const LATER = at(1_000_000)

export const suite = contractSuite("OAuthStore storage contract", ({ test, concurrent }) => {
  test(
    "upsert writes a record with every field, and replaces the one of the same model and id, its use too",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const full = oauthRecord("AccessToken", {
        payload: {
          accountId: uuid(),
          scope: "openid read write",
          claims: { nested: [1, 2.5, true, null, "é ✓ 🔑"] },
          exp: 1_767_225_600
        },
        grant_id: uuid(),
        uid: uuid(),
        user_code: "WDJB-MJHT",
        expires_at: at(3_600_000),
        consumed_at: at(5)
      })
      yield* store.upsert(full)
      expect(yield* store.find("AccessToken", full.id, at(0))).toEqual(Option.some(full))
      // The model is part of the key: the same id under another model is another record.
      expect(yield* store.find("RefreshToken", full.id, at(0))).toEqual(Option.none())
      const other = oauthRecord("RefreshToken", { id: full.id })
      yield* store.upsert(other)
      expect(yield* store.find("RefreshToken", full.id, at(0))).toEqual(Option.some(other))

      const replaced = oauthRecord("AccessToken", { id: full.id, payload: { replaced: true }, expires_at: at(10) })
      yield* store.upsert(replaced)
      expect(yield* store.find("AccessToken", full.id, at(0))).toEqual(Option.some(replaced))
      expect(yield* store.find("RefreshToken", full.id, at(0))).toEqual(Option.some(other))
      expect(yield* store.find("AccessToken", uuid(), at(0))).toEqual(Option.none())
    })
  )

  test(
    "find, findByUid and findByUserCode answer nothing once the record lapsed, at or before now",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const lapsing = oauthRecord("Session", { uid: uuid(), user_code: "ABCD-EFGH", expires_at: at(100) })
      const lasting = oauthRecord("Client")
      for (const record of [lapsing, lasting]) yield* store.upsert(record)
      const reads = (now: string) =>
        Effect.all([
          store.find("Session", lapsing.id, now),
          store.findByUid("Session", lapsing.uid!, now),
          store.findByUserCode("Session", lapsing.user_code!, now)
        ])
      expect(yield* reads(at(99))).toEqual([Option.some(lapsing), Option.some(lapsing), Option.some(lapsing)])
      expect(yield* reads(at(100))).toEqual([Option.none(), Option.none(), Option.none()])
      expect(yield* reads(at(101))).toEqual([Option.none(), Option.none(), Option.none()])
      // A record with no end never lapses.
      expect(yield* store.find("Client", lasting.id, LATER)).toEqual(Option.some(lasting))
    })
  )

  test(
    "findByUid and findByUserCode find the record of that model by its uid or user code",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const session = oauthRecord("Session", { uid: uuid() })
      const device = oauthRecord("DeviceCode", { user_code: "WXYZ-1234", expires_at: at(500) })
      const others = [oauthRecord("Session", { uid: uuid() }), oauthRecord("DeviceCode", { user_code: "QRST-5678" })]
      for (const record of [session, device, ...others]) yield* store.upsert(record)
      expect(yield* store.findByUid("Session", session.uid!, at(0))).toEqual(Option.some(session))
      expect(yield* store.findByUserCode("DeviceCode", "WXYZ-1234", at(0))).toEqual(Option.some(device))
      // Another model's uid or code is not this model's, and an id is not a uid.
      expect(yield* store.findByUid("Interaction", session.uid!, at(0))).toEqual(Option.none())
      expect(yield* store.findByUserCode("Session", "WXYZ-1234", at(0))).toEqual(Option.none())
      expect(yield* store.findByUid("Session", session.id, at(0))).toEqual(Option.none())
      expect(yield* store.findByUserCode("DeviceCode", "wxyz-1234", at(0))).toEqual(Option.none())
    })
  )

  test(
    "consume marks a record used and keeps the first use; an unknown record stays unknown",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const code = oauthRecord("AuthorizationCode", { grant_id: uuid(), expires_at: at(600) })
      const untouched = oauthRecord("AuthorizationCode")
      for (const record of [code, untouched]) yield* store.upsert(record)
      yield* store.consume("AuthorizationCode", code.id, at(10))
      const used = { ...code, consumed_at: at(10) }
      expect(yield* store.find("AuthorizationCode", code.id, at(0))).toEqual(Option.some(used))
      yield* store.consume("AuthorizationCode", code.id, at(20))
      expect(yield* store.find("AuthorizationCode", code.id, at(0))).toEqual(Option.some(used))
      expect(yield* store.find("AuthorizationCode", untouched.id, at(0))).toEqual(Option.some(untouched))
      const unknown = uuid()
      yield* store.consume("AuthorizationCode", unknown, at(10))
      expect(yield* store.find("AuthorizationCode", unknown, at(0))).toEqual(Option.none())
    })
  )

  test(
    "destroy removes one record and no other",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const gone = oauthRecord("Interaction", { uid: uuid() })
      const kept = oauthRecord("Session", { id: gone.id, uid: gone.uid })
      for (const record of [gone, kept]) yield* store.upsert(record)
      yield* store.destroy("Interaction", gone.id)
      yield* store.destroy("Interaction", uuid())
      expect(yield* store.find("Interaction", gone.id, at(0))).toEqual(Option.none())
      expect(yield* store.findByUid("Interaction", gone.uid!, at(0))).toEqual(Option.none())
      expect(yield* store.find("Session", kept.id, at(0))).toEqual(Option.some(kept))
    })
  )

  test(
    "revokeGrant removes the grant and every record of it, and only those",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const grantId = uuid()
      const grant = oauthRecord("Grant", { id: grantId, expires_at: at(1000) })
      const ofGrant = [
        oauthRecord("AccessToken", { grant_id: grantId, expires_at: at(1000) }),
        oauthRecord("RefreshToken", { grant_id: grantId, consumed_at: at(3) }),
        oauthRecord("AuthorizationCode", { grant_id: grantId })
      ]
      const otherGrantId = uuid()
      const kept = [
        oauthRecord("Grant", { id: otherGrantId }),
        oauthRecord("AccessToken", { grant_id: otherGrantId }),
        // Named like the grant, but not a grant.
        oauthRecord("Session", { id: grantId }),
        oauthRecord("Client")
      ]
      for (const record of [grant, ...ofGrant, ...kept]) yield* store.upsert(record)
      yield* store.revokeGrant(grantId)
      for (const record of [grant, ...ofGrant]) {
        expect(yield* store.find(record.model, record.id, at(0))).toEqual(Option.none())
      }
      for (const record of kept) {
        expect(yield* store.find(record.model, record.id, at(0))).toEqual(Option.some(record))
      }
      // A grant with nothing left is no failure.
      yield* store.revokeGrant(grantId)
    })
  )

  test(
    "claim keeps the first payload: a later claim answers it, and the record never lapses",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const first = { keys: [{ kty: "OKP", crv: "Ed25519", d: "secret" }], cookies: ["a", "b"] }
      expect(yield* store.claim("ServerKeys", "current", first)).toEqual(first)
      expect(yield* store.claim("ServerKeys", "current", { keys: [], cookies: ["c"] })).toEqual(first)
      expect(yield* store.find("ServerKeys", "current", LATER)).toEqual(
        Option.some(oauthRecord("ServerKeys", { id: "current", payload: first }))
      )
      // Another id is another claim.
      expect(yield* store.claim("ServerKeys", "next", { n: 2 })).toEqual({ n: 2 })
    })
  )

  concurrent(
    "of concurrent first claims, one wins and every claim answers it",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const offers = Array.from({ length: 8 }, (_, n) => ({ offer: n }))
      const answers = yield* Effect.forEach(offers, (offer) => store.claim("ServerKeys", "current", offer), {
        concurrency: "unbounded"
      })
      const winner = answers[0]!
      expect(offers).toContainEqual(winner)
      expect(answers).toEqual(offers.map(() => winner))
      expect(yield* store.claim("ServerKeys", "current", { offer: "late" })).toEqual(winner)
    })
  )

  test(
    "purge removes what lapsed before the cutoff and counts it",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const lapsed = [
        oauthRecord("AccessToken", { expires_at: at(10) }),
        oauthRecord("Session", { uid: uuid(), expires_at: at(99) })
      ]
      const kept = [
        // At the cutoff is not before it.
        oauthRecord("Grant", { expires_at: at(100) }),
        oauthRecord("Interaction", { expires_at: at(150) }),
        oauthRecord("Client")
      ]
      for (const record of [...lapsed, ...kept]) yield* store.upsert(record)
      expect(yield* store.purge(at(100))).toBe(2)
      // Read at a time before every end: what is gone was removed, not lapsed.
      for (const record of lapsed) expect(yield* store.find(record.model, record.id, at(0))).toEqual(Option.none())
      for (const record of kept) {
        expect(yield* store.find(record.model, record.id, at(0))).toEqual(Option.some(record))
      }
      expect(yield* store.purge(at(100))).toBe(0)
    })
  )

  test(
    "what a unit of work that fails changed is undone",
    Effect.gen(function* () {
      const store = yield* Access.OAuthStore
      const tx = yield* Transaction.Transaction
      const grantId = uuid()
      const code = oauthRecord("AuthorizationCode")
      const before = [
        oauthRecord("Grant", { id: grantId }),
        oauthRecord("AccessToken", { grant_id: grantId }),
        code,
        oauthRecord("Session", { expires_at: at(10) })
      ]
      for (const record of before) yield* store.upsert(record)
      const added = oauthRecord("Interaction")
      const failed = yield* Effect.either(
        tx.run(
          Effect.gen(function* () {
            yield* store.upsert(added)
            yield* store.upsert({ ...code, payload: { replaced: true } })
            yield* store.consume(code.model, code.id, at(5))
            yield* store.revokeGrant(grantId)
            expect(yield* store.purge(LATER)).toBe(1)
            yield* store.destroy(added.model, added.id)
            expect(yield* store.claim("ServerKeys", "current", { in: "the unit" })).toEqual({ in: "the unit" })
            expect(yield* store.find("Grant", grantId, at(0))).toEqual(Option.none())
            return yield* new Boom({ step: "after every change" })
          })
        )
      )
      expect(Either.isLeft(failed)).toBe(true)
      for (const record of before) {
        expect(yield* store.find(record.model, record.id, at(0))).toEqual(Option.some(record))
      }
      expect(yield* store.claim("ServerKeys", "current", { after: "the unit" })).toEqual({ after: "the unit" })
    })
  )
})
