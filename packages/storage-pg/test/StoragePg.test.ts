/**
 * What only the SQL adapter can get wrong, beyond the shared storage contract: the migrations,
 * SQL escaping, savepoints around unique violations, cross-connection atomicity of the rate
 * window and the idempotency lock, and the types both drivers hand back. Runs on PGlite, and on
 * the PostgreSQL server when DATABASE_URL is set (in a database of its own).
 */
import {
  Access,
  Contacts,
  Errors,
  Events,
  Idempotency,
  Ids,
  Organisation,
  People,
  Settings,
  Transaction
} from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer, type Vitest } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { freshDatabase, serverUrl } from "../../../test/support/pgDatabase.js"
import * as StoragePg from "../src/index.js"

const organisationId = () => Ids.brand(Organisation.OrganisationId, crypto.randomUUID())

type Services = StoragePg.Ports | SqlClient.SqlClient

const at = (ms: number) => new Date(Date.UTC(2026, 10, 22, 9, 30) + ms).toISOString()

const contact = (fields: Partial<Contacts.Contact> = {}): Contacts.Contact => ({
  id: Ids.brand(Contacts.ContactId, crypto.randomUUID()),
  first_name: null,
  last_name: null,
  email: null,
  phone: null,
  company_id: null,
  status: "lead",
  source: null,
  custom: {},
  created_at: at(0),
  updated_at: at(0),
  ...fields
})

const suite = (it: Vitest.MethodsNonLive<Services>, concurrentConnections: boolean) => {
  it.effect("applies the migrations once: a second run finds nothing to do", () =>
    Effect.gen(function* () {
      expect(yield* StoragePg.migrate).toEqual([])
      const sql = yield* SqlClient.SqlClient
      const applied = yield* sql<{
        migration_id: number
      }>`SELECT migration_id FROM crm_migrations ORDER BY migration_id`
      expect(applied.map((row) => row.migration_id)).toEqual(
        Object.keys(StoragePg.migrations).map((key) => Number(key.split("_")[0]))
      )
    })
  )

  it.effect("matches q literally: %, _, \\ and * are not wildcards, case is ignored", () =>
    Effect.gen(function* () {
      const repo = yield* Contacts.ContactRepository
      const org = organisationId()
      const names = ["100% sure", "a_b", "back\\slash", "star*", "plain", "aXb", "100 percent"]
      for (const [i, name] of names.entries()) {
        yield* repo.insert(org, contact({ first_name: name, created_at: at(i), updated_at: at(i) }))
      }
      const search = (q: string) =>
        Effect.map(repo.list(org, { q }, { limit: 50, offset: 0 }), (rows) => rows.map((row) => row.first_name))
      expect(yield* search("%")).toEqual(["100% sure"])
      expect(yield* search("_")).toEqual(["a_b"])
      expect(yield* search("\\")).toEqual(["back\\slash"])
      expect(yield* search("*")).toEqual(["star*"])
      expect(yield* search("SURE")).toEqual(["100% sure"])
      expect(yield* search("0% s")).toEqual(["100% sure"])
    })
  )

  it.effect("refuses a second live holder inside a transaction that then carries on and commits", () =>
    Effect.gen(function* () {
      const repo = yield* Contacts.ContactRepository
      const tx = yield* Transaction.Transaction
      const org = organisationId()
      const holder = contact({ email: "ann@example.com" })
      yield* repo.insert(org, holder)
      const other = contact({ email: "bob@example.com" })
      const refused = yield* tx.run(
        Effect.gen(function* () {
          const error = yield* Effect.flip(repo.insert(org, contact({ email: "ann@example.com" })))
          yield* repo.insert(org, other)
          return error
        })
      )
      expect(refused).toBeInstanceOf(Errors.EmailAlreadyExists)
      expect((refused as Errors.EmailAlreadyExists).detail).toEqual({
        id: holder.id,
        message: "a live contact already has this email"
      })
      expect(Option.isSome(yield* repo.get(org, other.id))).toBe(true)
      // An update onto a taken address is refused the same way; archiving frees the address.
      const moved = yield* Effect.flip(repo.update(org, { ...other, email: "ann@example.com" }))
      expect(moved).toBeInstanceOf(Errors.EmailAlreadyExists)
      expect(yield* repo.archive(org, holder.id, at(1))).toBe(true)
      yield* repo.update(org, { ...other, email: "ann@example.com" })
      expect(yield* repo.list(org, { email: "ann@example.com" }, { limit: 10, offset: 0 })).toEqual([
        { ...other, email: "ann@example.com" }
      ])
    })
  )

  it.effect("turns any other SQL failure into a StorageError", () =>
    Effect.gen(function* () {
      const repo = yield* Access.AccessRepository
      const error = yield* Effect.flip(
        repo.insertKey({
          id: Ids.brand(Access.KeyId, crypto.randomUUID()),
          organisation_id: organisationId(),
          name: null,
          hash: "0".repeat(64),
          scopes: ["read"],
          expires_at: null,
          allowed_ips: [],
          revoked_at: null,
          created_at: at(0),
          owner_id: null,
          created_by: null,
          last_used_at: null,
          grant_id: null,
          client_id: null
        })
      )
      // A refusal of the statement, not an outage (a StorageUnavailable is a StorageError too).
      expect(error).toBeInstanceOf(Errors.StorageError)
      expect(error).not.toBeInstanceOf(Errors.StorageUnavailable)
      expect(error.message).toMatch(/^AccessRepository\.insertKey: .*violates foreign key constraint/)
      const contacts = yield* Contacts.ContactRepository
      const twice = contact()
      // Keys lead with the organisation (migration 0030): the same id in another one is no clash.
      const owner = organisationId()
      yield* contacts.insert(owner, twice)
      const duplicate = yield* Effect.flip(contacts.insert(owner, twice))
      expect(duplicate).toBeInstanceOf(Errors.StorageError)
      expect(duplicate).not.toBeInstanceOf(Errors.StorageUnavailable)
      expect(duplicate.message).toMatch(/^ContactRepository\.insert: duplicate key value violates unique constraint/)
    })
  )

  it.effect("reads back keys with arrays, nulls and timestamps as written", () =>
    Effect.gen(function* () {
      const repo = yield* Access.AccessRepository
      const organisation = { id: organisationId(), name: "Acme", settings: yield* settings("Acme") }
      yield* repo.insertOrganisation(organisation, at(0))
      const key: Access.ApiKeyRecord = {
        id: Ids.brand(Access.KeyId, crypto.randomUUID()),
        organisation_id: organisation.id,
        name: 'ci, "quoted" {braced}',
        hash: crypto.randomUUID().replace(/-/g, ""),
        scopes: ["read", "quotes:write"],
        expires_at: at(86_400_000),
        allowed_ips: ["10.0.0.0/8", "2001:db8::/32"],
        revoked_at: null,
        created_at: at(5),
        owner_id: Ids.brand(Organisation.UserId, crypto.randomUUID()),
        created_by: Ids.brand(People.AccountId, crypto.randomUUID()),
        last_used_at: at(9),
        // A connected app's, so that every column of the key is read back.
        grant_id: crypto.randomUUID(),
        client_id: "https://client.example.test/metadata.json"
      }
      yield* repo.insertKey(key)
      expect(
        Option.map(yield* repo.findKeyByHash(key.hash), ({ key, organisation }) => ({ key, organisation }))
      ).toEqual(Option.some({ key, organisation }))
    })
  )

  it.effect("hands out event ids as decimal strings, in order, filtered and paged", () =>
    Effect.gen(function* () {
      const log = yield* Events.EventLog
      const org = organisationId()
      yield* log.append(
        org,
        [
          { event: "contact.created", data: { n: 1 } },
          { event: "company.created", data: { n: 2 } },
          { event: "contact.created", data: { n: 3, list: [1, 2] } }
        ],
        at(7)
      )
      const all = yield* log.after(org, { since: 0n, event: undefined, limit: 10 })
      expect(all.map((row) => row.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3, list: [1, 2] }])
      expect(all.every((row) => /^\d+$/.test(row.id) && row.created_at === at(7))).toBe(true)
      const first = BigInt(all[0].id)
      expect(all.map((row) => BigInt(row.id) - first)).toEqual([0n, 1n, 2n])
      const contacts = yield* log.after(org, { since: first, event: "contact.created", limit: 0 })
      expect(contacts.map((row) => row.data)).toEqual([{ n: 3, list: [1, 2] }])
      // The wire accepts 19-digit cursors, some beyond int8: nothing is after them, and no error.
      expect(yield* log.after(org, { since: 9_999_999_999_999_999_999n, event: undefined, limit: 10 })).toEqual([])
    })
  )

  it.effect("admits exactly the limit of many concurrent requests", () =>
    Effect.gen(function* () {
      const limiter = yield* Access.RateLimiter
      const keyId = Ids.brand(Access.KeyId, crypto.randomUUID())
      const org = organisationId()
      const now = Date.now()
      const decisions = yield* Effect.all(
        Array.from({ length: 40 }, () =>
          limiter.take(keyId, { organisationId: org, now, limit: 7, windowMs: 60_000, spend: true })
        ),
        { concurrency: "unbounded" }
      )
      expect(decisions.filter((decision) => decision.admitted)).toHaveLength(7)
      expect(
        decisions
          .filter((decision) => decision.admitted)
          .map((d) => d.remaining)
          .sort()
      ).toEqual([0, 1, 2, 3, 4, 5, 6])
      expect(decisions.find((decision) => !decision.admitted)).toMatchObject({
        admitted: false,
        remaining: 0,
        retryAfterMs: 60_000
      })
      expect(
        yield* limiter.take(keyId, { organisationId: org, now: now + 60_000, limit: 7, windowMs: 60_000, spend: false })
      ).toMatchObject({
        admitted: true,
        remaining: 7,
        retryAfterMs: 0
      })
    })
  )

  if (concurrentConnections) {
    it.effect("answers IdempotencyInProgress while another transaction holds the key, the record after", () =>
      Effect.gen(function* () {
        const store = yield* Idempotency.IdempotencyStore
        const tx = yield* Transaction.Transaction
        const scope = { keyId: Ids.brand(Access.KeyId, crypto.randomUUID()), idempotencyKey: "retry-1" }
        const record = {
          fingerprint: "POST /contacts abc",
          payload: "201 Created {}",
          created_at: at(0)
        }
        const claimed = yield* Deferred.make<void>()
        const proceed = yield* Deferred.make<void>()
        const first = yield* tx
          .run(
            Effect.gen(function* () {
              expect(yield* store.claim(scope, at(-1))).toEqual(Option.none())
              yield* Deferred.succeed(claimed, undefined)
              yield* Deferred.await(proceed)
              yield* store.save(scope, record, at(-1))
            })
          )
          .pipe(Effect.fork)
        yield* Deferred.await(claimed)
        const busy = yield* Effect.flip(tx.run(store.claim(scope, at(-1))))
        expect(busy).toBeInstanceOf(Errors.IdempotencyInProgress)
        yield* Deferred.succeed(proceed, undefined)
        yield* Fiber.join(first)
        expect(yield* tx.run(store.claim(scope, at(-1)))).toEqual(Option.some(record))
        expect(yield* tx.run(store.claim(scope, at(1)))).toEqual(Option.none())
      })
    )

    it.effect("lets several processes migrate the same database at once", () =>
      Effect.gen(function* () {
        // Two pools stand for two processes starting together on an empty database.
        const url = yield* freshDatabase(serverUrl!)
        const start = Layer.build(StoragePg.layerServer({ url: url.url, maxConnections: 2 }))
        yield* Effect.all([start, start, start], { concurrency: "unbounded" })
      }).pipe(Effect.scoped)
    )
  }
}

const settings = (name: string) => Settings.complete(name, Settings.SettingsInput.parse({}))

layer(StoragePg.layerPglite(), { timeout: "60 seconds" })("StoragePg on PGlite", (it) => suite(it, false))

describe.skipIf(serverUrl === undefined)("on the PostgreSQL server", () => {
  layer(
    Layer.unwrapScoped(
      Effect.map(freshDatabase(serverUrl!), (database) =>
        StoragePg.layerServer({ url: database.url, maxConnections: 20 })
      )
    ),
    { timeout: "30 seconds" }
  )("StoragePg on PostgreSQL", (it) => suite(it, true))
})
