/**
 * The audit trail's port (`People.AuditLog`): entries written in the caller's unit of work (gone
 * with it when it fails), an organisation's entries newest first, and the purge by age.
 */
import { Contacts, type Organisation, People, Transaction } from "@crm/core"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { contractSuite } from "./ContractCases.js"
import { at, Boom, ids, newId, organisationId, page, person, seed, uuid } from "./Fixtures.js"

export const entry = (
  organisation: Organisation.OrganisationId | null,
  overrides: Partial<People.AuditRecord> = {}
): People.AuditRecord => ({
  id: newId(People.AuditEntryId),
  organisation_id: organisation,
  at: at(0),
  actor: { kind: "operator", id: null, label: "operator" },
  action: "key.created",
  target: null,
  address: null,
  summary: {},
  ...overrides
})

/** Newest `at` first, ties by id descending: the order every page promises. */
const newestFirst = (entries: ReadonlyArray<People.AuditRecord>) =>
  [...entries].sort((x, y) => (x.at !== y.at ? (x.at < y.at ? 1 : -1) : x.id < y.id ? 1 : x.id > y.id ? -1 : 0))

export const suite = contractSuite("AuditLog storage contract", ({ test }) => {
  test(
    "an entry round-trips every field, in its organisation's trail only",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const audit = yield* People.AuditLog
      const full = entry(a.id, {
        at: at(5),
        actor: { kind: "user", id: uuid(), label: "ada@example.test" },
        action: "member.role_changed",
        target: { kind: "user", id: uuid() },
        address: "2001:db8::7",
        summary: { from: "member", to: "admin", scopes: ["read", "write"], nested: { n: 1.5, none: null } }
      })
      const keyed = entry(a.id, {
        at: at(4),
        actor: { kind: "key", id: uuid(), label: null },
        action: "settings.replaced",
        target: { kind: "organisation", id: null }
      })
      // A failed sign-in for an address that has no account belongs to no organisation.
      const nobodys = entry(null, { actor: { kind: "anonymous", id: null, label: null }, action: "sign_in.failed" })
      for (const made of [keyed, full, nobodys]) yield* audit.append(made)
      expect(yield* audit.page(a.id, page(10))).toEqual([full, keyed])
      expect(yield* audit.page(b.id, page(10))).toEqual([])
      // An entry's id is unique; an entry names an organisation the store holds, or none.
      expect(yield* Effect.isFailure(audit.append(entry(b.id, { id: full.id })))).toBe(true)
      expect(yield* Effect.isFailure(audit.append(entry(organisationId())))).toBe(true)
      expect(yield* audit.page(b.id, page(10))).toEqual([])
    })
  )

  test(
    "page: newest first (ties by id descending), at most limit + 1",
    Effect.gen(function* () {
      const { a } = yield* seed
      const audit = yield* People.AuditLog
      const entries = [3, 7, 3, 3, 0, 7].map((t) => entry(a.id, { at: at(t) }))
      for (const made of entries) yield* audit.append(made)
      const expected = ids(newestFirst(entries))
      expect(ids(yield* audit.page(a.id, page(50)))).toEqual(expected)
      expect(ids(yield* audit.page(a.id, page(2)))).toEqual(expected.slice(0, 3))
      expect(ids(yield* audit.page(a.id, page(2, 2)))).toEqual(expected.slice(2, 5))
      expect(ids(yield* audit.page(a.id, page(2, 6)))).toEqual([])
    })
  )

  test(
    "an entry appended in a unit of work that fails is gone with the change it recorded",
    Effect.gen(function* () {
      const { a } = yield* seed
      const audit = yield* People.AuditLog
      const contacts = yield* Contacts.ContactRepository
      const tx = yield* Transaction.Transaction
      const ann = person({ first_name: "Ann" })
      const failed = yield* Effect.either(
        tx.run(
          Effect.gen(function* () {
            yield* contacts.insert(a.id, ann)
            yield* audit.append(entry(a.id, { action: "contact.imported" }))
            expect(yield* audit.page(a.id, page(10))).toHaveLength(1)
            return yield* new Boom({ step: "after the entry" })
          })
        )
      )
      expect(Either.isLeft(failed)).toBe(true)
      expect(yield* audit.page(a.id, page(10))).toEqual([])
      expect(yield* contacts.get(a.id, ann.id)).toEqual(Option.none())

      const kept = entry(a.id)
      yield* tx.run(audit.append(kept))
      expect(yield* audit.page(a.id, page(10))).toEqual([kept])
    })
  )

  test(
    "purge removes the entries older than the cutoff, of every organisation and of none, and counts them",
    Effect.gen(function* () {
      const { a, b } = yield* seed
      const audit = yield* People.AuditLog
      const [oldA, oldB, oldNone, edge, recent] = [
        entry(a.id, { at: at(10) }),
        entry(b.id, { at: at(20) }),
        entry(null, { at: at(30) }),
        entry(a.id, { at: at(100) }),
        entry(b.id, { at: at(150) })
      ]
      for (const made of [oldA, oldB, oldNone, edge, recent]) yield* audit.append(made)
      expect(yield* audit.purge(at(100))).toBe(3)
      expect(yield* audit.page(a.id, page(10))).toEqual([edge])
      expect(yield* audit.page(b.id, page(10))).toEqual([recent])
      expect(yield* audit.purge(at(100))).toBe(0)
    })
  )
})
