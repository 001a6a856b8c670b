/**
 * The access port (`AccessRepository`): organisations with their settings and test clocks, and API
 * keys found by hash with their organisation, paged and revoked, the keys of connected apps apart.
 */
import { Access, People, Records, type Settings, Transaction } from "@crm/core"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { contractSuite } from "./ContractCases.js"
import {
  apiKey,
  at,
  Boom,
  newId,
  newKey,
  organisation,
  organisationId,
  page,
  seed,
  settingsFor,
  sha256,
  uuid
} from "./Fixtures.js"

type Organisation = Settings.Organisation

/** A connected app's key, made by a person: its grant, its client, and `ApiKey.appHash` of the grant as its hash. */
const appKey = (
  organisationId: Organisation["id"],
  overrides: Partial<Access.ApiKeyRecord> = {}
): Access.ApiKeyRecord => {
  const grantId = uuid()
  return apiKey(organisationId, {
    name: "Claude",
    hash: sha256(`app:${grantId}`),
    grant_id: grantId,
    client_id: "https://claude.example.test/oauth/metadata.json",
    created_by: newId(People.AccountId),
    ...overrides
  })
}

/** What a key answer holds, without the version a cached one is read at. */
const held = (found: Option.Option<Access.FoundKey>) => {
  const { key, organisation } = Option.getOrThrow(found)
  return { key, organisation }
}

export const suite = contractSuite("AccessRepository storage contract", ({ test }) => {
  test(
    "an empty store has no organisations; organisations round-trip",
    Effect.gen(function* () {
      const access = yield* Access.AccessRepository
      expect(yield* access.countOrganisations).toBe(0)
      const { a, b } = yield* seed
      expect(yield* access.countOrganisations).toBe(2)
      expect(Option.getOrThrow(yield* access.getOrganisation(a.id))).toEqual(a)
      expect(Option.getOrThrow(yield* access.getOrganisation(b.id))).toEqual(b)
      expect(Option.isNone(yield* access.getOrganisation(organisationId()))).toBe(true)
    })
  )

  test(
    "listOrganisations is every organisation, oldest first",
    Effect.gen(function* () {
      const access = yield* Access.AccessRepository
      expect(yield* access.listOrganisations).toEqual([])
      const [newest, oldest, middle] = [organisation("Newest"), organisation("Oldest"), organisation("Middle")]
      yield* access.insertOrganisation(newest, at(30))
      yield* access.insertOrganisation(oldest, at(10))
      yield* access.insertOrganisation(middle, at(20))
      expect(yield* access.listOrganisations).toEqual([oldest, middle, newest])
    })
  )

  test(
    "organisationPage: summaries newest first (ties by id descending), at most limit + 1",
    Effect.gen(function* () {
      const access = yield* Access.AccessRepository
      expect(yield* access.organisationPage(page(10))).toEqual([])
      const prague: Organisation = {
        ...organisation("Prague"),
        settings: { ...settingsFor("Prague"), timezone: "Europe/Prague", default_currency: "CZK" }
      }
      const [oldest, twinA, twinB] = [organisation("Oldest"), organisation("Twin A"), organisation("Twin B")]
      yield* access.insertOrganisation(oldest, at(10))
      yield* access.insertOrganisation(prague, at(30))
      yield* access.insertOrganisation(twinA, at(20))
      yield* access.insertOrganisation(twinB, at(20))
      const twins = [twinA, twinB].sort((x, y) => (x.id < y.id ? 1 : -1))
      const summary = (org: Organisation, ms: number) => ({
        id: org.id,
        name: org.name,
        timezone: org.settings.timezone,
        default_currency: org.settings.default_currency,
        created_at: at(ms)
      })
      const all = [summary(prague, 30), summary(twins[0]!, 20), summary(twins[1]!, 20), summary(oldest, 10)]
      expect(yield* access.organisationPage(page(10))).toEqual(all)
      expect(all[0]).toMatchObject({ timezone: "Europe/Prague", default_currency: "CZK" })
      expect(yield* access.organisationPage(page(1, 1))).toEqual(all.slice(1, 3))
      expect(yield* access.organisationPage(page(2, 3))).toEqual(all.slice(3))
      expect(yield* access.organisationPage(page(2, 4))).toEqual([])
    })
  )

  test(
    "updateSettings replaces the document (and the name with it) of that organisation only",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const access = yield* Access.AccessRepository
      const settings: Settings.Settings = {
        ...settingsFor("Renamed"),
        timezone: "Europe/Prague",
        default_currency: "CZK",
        payment_terms_days: 30,
        plan: { read_only: true, max_contacts: 10, max_companies: 0 },
        record_types: [
          {
            id: newId(Records.RecordTypeId),
            key: "visit",
            name: "Visit",
            fields: [{ key: "note", type: "text", required: false }]
          }
        ],
        stock: { low_stock_threshold: 2 }
      }
      const expected: Organisation = { id: a.id, name: "Renamed", settings }
      expect(Option.getOrThrow(yield* access.updateSettings(a.id, settings))).toEqual(expected)
      expect(Option.getOrThrow(yield* access.getOrganisation(a.id))).toEqual(expected)
      expect(Option.getOrThrow(yield* access.getOrganisation(b.id))).toEqual(b)
      expect(Option.isNone(yield* access.updateSettings(organisationId(), settings))).toBe(true)
      expect(yield* access.countOrganisations).toBe(2)
    })
  )

  test(
    "holdOrganisation reads the organisation as committed, inside a unit of work, in either mode",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const access = yield* Access.AccessRepository
      const tx = yield* Transaction.Transaction
      const renamed = { ...a.settings, name: "Held" }
      const held = yield* tx.run(
        Effect.gen(function* () {
          const before = yield* access.holdOrganisation(a.id, "replace")
          yield* access.updateSettings(a.id, renamed)
          return { before, shared: yield* access.holdOrganisation(b.id, "share") }
        })
      )
      expect(Option.getOrThrow(held.before)).toEqual(a)
      expect(Option.getOrThrow(held.shared)).toEqual(b)
      const after = yield* tx.run(access.holdOrganisation(a.id, "share"))
      expect(Option.getOrThrow(after)).toEqual({ ...a, name: "Held", settings: renamed })
      expect(Option.isNone(yield* tx.run(access.holdOrganisation(organisationId(), "share")))).toBe(true)
    })
  )

  test(
    "a test-mode organisation keeps its clock, which setTestClock moves only from where it stands",
    Effect.gen(function* () {
      const { a } = yield* seed
      const access = yield* Access.AccessRepository
      const sandbox: Organisation = { ...organisation("Sandbox"), test_clock: { frozen_at: null } }
      yield* access.insertOrganisation(sandbox, at(5))
      expect(Option.getOrThrow(yield* access.getOrganisation(sandbox.id))).toEqual(sandbox)
      const key = apiKey(sandbox.id)
      yield* access.insertKey(key)

      const frozen = "2030-03-10T12:00:00.000Z"
      expect(yield* access.setTestClock(sandbox.id, null, frozen)).toBe(true)
      const moved: Organisation = { ...sandbox, test_clock: { frozen_at: frozen } }
      expect(Option.getOrThrow(yield* access.getOrganisation(sandbox.id))).toEqual(moved)
      expect(Option.getOrThrow(yield* access.findKeyByHash(key.hash)).organisation).toEqual(moved)
      expect((yield* access.listOrganisations).find((org) => org.id === sandbox.id)).toEqual(moved)

      // Compare and set: a clock that has moved since it was read is left alone.
      expect(yield* access.setTestClock(sandbox.id, null, "2031-01-01T00:00:00.000Z")).toBe(false)
      expect(yield* access.setTestClock(sandbox.id, frozen, null)).toBe(true)
      expect(Option.getOrThrow(yield* access.getOrganisation(sandbox.id))).toEqual(sandbox)

      // A live organisation has no clock to move, and a missing one neither.
      expect(yield* access.setTestClock(a.id, null, frozen)).toBe(false)
      expect(Option.getOrThrow(yield* access.getOrganisation(a.id)).test_clock).toBeUndefined()
      expect(yield* access.setTestClock(organisationId(), null, frozen)).toBe(false)
    })
  )

  test(
    "findKeyByHash returns the key with its organisation in one read",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const access = yield* Access.AccessRepository
      const full = apiKey(a.id, {
        name: "ci",
        scopes: ["read", "write", "invoices:write"],
        expires_at: at(86_400_000),
        allowed_ips: ["10.0.0.0/8", "2001:db8::/32"],
        created_at: at(3)
      })
      const bare = apiKey(b.id)
      yield* access.insertKey(full)
      yield* access.insertKey(bare)
      expect(held(yield* access.findKeyByHash(full.hash))).toEqual({ key: full, organisation: a })
      expect(held(yield* access.findKeyByHash(bare.hash))).toEqual({ key: bare, organisation: b })
      expect(Option.isNone(yield* access.findKeyByHash(sha256("unknown")))).toBe(true)
    })
  )

  test(
    "keyPage: the organisation's keys, revoked ones too, newest first (ties by id descending), at most limit + 1",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const access = yield* Access.AccessRepository
      expect(yield* access.keyPage(a.id, page(10), "keys")).toEqual([])
      const full = apiKey(a.id, {
        name: "ci",
        scopes: ["read", "invoices:write"],
        expires_at: at(86_400_000),
        allowed_ips: ["10.0.0.0/8"],
        created_at: at(30)
      })
      const [twinA, twinB] = [apiKey(a.id, { created_at: at(20) }), apiKey(a.id, { created_at: at(20) })]
      const revoked = apiKey(a.id, { created_at: at(10) })
      for (const key of [revoked, full, twinA, twinB, apiKey(b.id, { created_at: at(40) })]) {
        yield* access.insertKey(key)
      }
      yield* access.revokeKey(revoked.id, at(50))
      const twins = [twinA, twinB].sort((x, y) => (x.id < y.id ? 1 : -1))
      const all = [full, twins[0]!, twins[1]!, { ...revoked, revoked_at: at(50) }]
      expect(yield* access.keyPage(a.id, page(10), "keys")).toEqual(all)
      expect(yield* access.keyPage(a.id, page(1, 1), "keys")).toEqual(all.slice(1, 3))
      expect(yield* access.keyPage(a.id, page(2, 4), "keys")).toEqual([])
      expect(yield* access.keyPage(organisationId(), page(10), "keys")).toEqual([])
    })
  )

  test(
    "keyPage lists the keys made as keys or the connected apps' keys, never both; one key per grant",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const access = yield* Access.AccessRepository
      const made = [apiKey(a.id, { created_at: at(10) }), apiKey(a.id, { created_at: at(30) })]
      const apps = [appKey(a.id, { created_at: at(20) }), appKey(a.id, { created_at: at(40) })]
      for (const key of [...made, ...apps, appKey(b.id)]) yield* access.insertKey(key)
      yield* access.revokeKey(apps[0]!.id, at(50))
      expect(yield* access.keyPage(a.id, page(10), "keys")).toEqual([made[1], made[0]])
      expect(yield* access.keyPage(a.id, page(10), "apps")).toEqual([apps[1], { ...apps[0], revoked_at: at(50) }])
      expect(yield* access.keyPage(a.id, page(1, 1), "apps")).toEqual([{ ...apps[0], revoked_at: at(50) }])
      expect(held(yield* access.findKeyByHash(apps[1]!.hash))).toEqual({ key: apps[1], organisation: a })
      const again = appKey(b.id, { grant_id: apps[1]!.grant_id })
      expect(yield* Effect.isFailure(access.insertKey(again))).toBe(true)
      expect(yield* access.key(again.id)).toEqual(Option.none())
    })
  )

  test(
    "revokeAppsOf revokes the live apps' keys a person connected in an organisation, returned as they were",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const access = yield* Access.AccessRepository
      const [leaving, staying] = [newId(People.AccountId), newId(People.AccountId)]
      const theirs = [
        appKey(a.id, { created_by: leaving, created_at: at(10) }),
        appKey(a.id, { created_by: leaving, created_at: at(20), last_used_at: at(25) })
      ]
      const earlier = appKey(a.id, { created_by: leaving })
      const kept = [
        // Made as a key, in the settings screen: not an app's.
        apiKey(a.id, { created_by: leaving }),
        appKey(a.id, { created_by: staying }),
        appKey(b.id, { created_by: leaving })
      ]
      for (const key of [...theirs, earlier, ...kept]) yield* access.insertKey(key)
      yield* access.revokeKey(earlier.id, at(5))
      // Found once, as authentication finds it: a store that caches it must drop it.
      expect(Option.getOrThrow(yield* access.findKeyByHash(theirs[0]!.hash)).key).toEqual(theirs[0])

      const revoked = yield* access.revokeAppsOf(a.id, leaving, at(50))
      expect([...revoked].sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(
        [...theirs].sort((x, y) => (x.id < y.id ? -1 : 1))
      )
      for (const key of theirs) {
        expect(yield* access.key(key.id)).toEqual(Option.some({ ...key, revoked_at: at(50) }))
        expect(Option.getOrThrow(yield* access.findKeyByHash(key.hash)).key.revoked_at).toBe(at(50))
      }
      expect(yield* access.key(earlier.id)).toEqual(Option.some({ ...earlier, revoked_at: at(5) }))
      for (const key of kept) expect(yield* access.key(key.id)).toEqual(Option.some(key))
      expect(yield* access.revokeAppsOf(a.id, leaving, at(60))).toEqual([])
      expect(yield* access.revokeAppsOf(a.id, newId(People.AccountId), at(60))).toEqual([])
    })
  )

  test(
    "revokeAppsOf in a unit of work that fails revokes nothing",
    Effect.gen(function* () {
      const { a } = yield* seed
      const access = yield* Access.AccessRepository
      const tx = yield* Transaction.Transaction
      const leaving = newId(People.AccountId)
      const key = appKey(a.id, { created_by: leaving })
      yield* access.insertKey(key)
      const failed = yield* Effect.either(
        tx.run(
          Effect.gen(function* () {
            expect(yield* access.revokeAppsOf(a.id, leaving, at(50))).toEqual([key])
            return yield* new Boom({ step: "after the revocation" })
          })
        )
      )
      expect(Either.isLeft(failed)).toBe(true)
      expect(yield* access.key(key.id)).toEqual(Option.some(key))
      expect(Option.getOrThrow(yield* access.findKeyByHash(key.hash)).key).toEqual(key)
    })
  )

  test(
    "revokeKey sets revoked_at once; an unknown key is not revoked",
    Effect.gen(function* () {
      const { a } = yield* seed
      const access = yield* Access.AccessRepository
      const [key, other] = [yield* newKey(a.id), yield* newKey(a.id)]
      expect(yield* access.revokeKey(key.id, at(50))).toBe(true)
      expect(Option.getOrThrow(yield* access.findKeyByHash(key.hash)).key.revoked_at).toBe(at(50))
      expect(yield* access.revokeKey(key.id, at(60))).toBe(true)
      expect(Option.getOrThrow(yield* access.findKeyByHash(key.hash)).key.revoked_at).toBe(at(50))
      expect(yield* access.revokeKey(newId(Access.KeyId), at(60))).toBe(false)
      expect(Option.getOrThrow(yield* access.findKeyByHash(other.hash)).key).toEqual(other)
    })
  )

  test(
    "key reads one key by id, revoked or not, whichever organisation holds it; its maker round-trips",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const access = yield* Access.AccessRepository
      const maker = newId(People.AccountId)
      const made = apiKey(a.id, { name: "made in the settings", created_by: maker, last_used_at: at(7) })
      const [operators, revoked] = [apiKey(b.id), apiKey(a.id)]
      for (const key of [made, operators, revoked]) yield* access.insertKey(key)
      yield* access.revokeKey(revoked.id, at(9))
      expect(yield* access.key(made.id)).toEqual(Option.some(made))
      expect(yield* access.key(operators.id)).toEqual(Option.some(operators))
      expect(yield* access.key(revoked.id)).toEqual(Option.some({ ...revoked, revoked_at: at(9) }))
      expect(yield* access.key(newId(Access.KeyId))).toEqual(Option.none())
      expect(Option.getOrThrow(yield* access.findKeyByHash(made.hash)).key).toEqual(made)
      expect((yield* access.keyPage(a.id, page(10), "keys")).find((key) => key.id === made.id)).toEqual(made)
    })
  )

  test(
    "touchKeys notes each key's latest use in one write: an earlier time never replaces a later one",
    Effect.gen(function* () {
      const { a } = yield* seed
      const access = yield* Access.AccessRepository
      const [key, second, other] = [yield* newKey(a.id), yield* newKey(a.id), yield* newKey(a.id)]
      const lastUse = (id: Access.KeyId) => Effect.map(access.key(id), (found) => Option.getOrThrow(found).last_used_at)
      expect(yield* lastUse(key.id)).toBeNull()
      yield* access.touchKeys([{ id: key.id, at: at(60_000) }])
      expect(yield* lastUse(key.id)).toBe(at(60_000))
      yield* access.touchKeys([
        { id: key.id, at: at(30_000) },
        { id: second.id, at: at(45_000) },
        { id: newId(Access.KeyId), at: at(60_000) }
      ])
      expect(yield* lastUse(key.id)).toBe(at(60_000))
      expect(yield* lastUse(second.id)).toBe(at(45_000))
      yield* access.touchKeys([{ id: key.id, at: at(120_000) }])
      yield* access.touchKeys([])
      // Nothing else of the key moves, and no other key.
      expect(yield* access.key(key.id)).toEqual(Option.some({ ...key, last_used_at: at(120_000) }))
      expect(yield* access.key(other.id)).toEqual(Option.some(other))
      // Touching a revoked key leaves it revoked.
      yield* access.revokeKey(key.id, at(130_000))
      yield* access.touchKeys([{ id: key.id, at: at(140_000) }])
      expect(Option.getOrThrow(yield* access.findKeyByHash(key.hash)).key.revoked_at).toBe(at(130_000))
    })
  )
})
