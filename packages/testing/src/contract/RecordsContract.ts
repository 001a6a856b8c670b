/**
 * The contract of the custom-record, form-submission and visit ports: every adapter must pass it
 * unchanged. `makeLayer` is called once per test and must give an isolated, empty store.
 */
import { Companies, Contacts, Deals, Errors, Forms, Leads, Organisation, Records, Transaction, Visits } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import {
  at,
  Boom,
  expectHeldUntilCommit,
  ids,
  newId,
  organisationId,
  page,
  type StoragePorts,
  uuid
} from "./Fixtures.js"

const record = (overrides: Partial<Records.CustomRecord> = {}): Records.CustomRecord => ({
  id: newId(Records.RecordId),
  type_id: newId(Records.RecordTypeId),
  type_key: "project",
  title: null,
  owner_id: null,
  custom: {},
  contact_id: null,
  company_id: null,
  deal_id: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

const submission = (overrides: Partial<Forms.Submission> = {}): Forms.Submission => ({
  id: newId(Forms.SubmissionId),
  form_id: newId(Forms.FormId),
  contact_id: newId(Contacts.ContactId),
  contact_created: false,
  fields: {},
  visitor_id: null,
  created_at: at(0),
  ...overrides
})

const visit = (overrides: Partial<Visits.Visit> = {}): Visits.Visit => ({
  id: newId(Visits.VisitId),
  url: "https://example.com/",
  referrer: null,
  visitor_id: null,
  contact_id: null,
  occurred_at: at(0),
  created_at: at(0),
  ...overrides
})

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`records contract: ${name}`, () => {
    describe("RecordRepository", () => {
      test(
        "round-trips every field, without aliasing, and only within its organisation",
        Effect.gen(function* () {
          const repo = yield* Records.RecordRepository
          const [a, b] = [organisationId(), organisationId()]
          const full = record({
            title: "Engine",
            owner_id: newId(Organisation.UserId),
            custom: {
              budget: 12.5,
              stage: "idea",
              tags: ["a", "b"],
              links: [uuid()],
              nested: { ok: true, none: null }
            },
            contact_id: newId(Contacts.ContactId),
            company_id: newId(Companies.CompanyId),
            deal_id: newId(Deals.DealId),
            created_at: at(1),
            updated_at: at(2)
          })
          const expected = structuredClone(full)
          yield* repo.insert(a, full)
          ;(full.custom as { stage: string }).stage = "changed after insert"
          const got = Option.getOrThrow(yield* repo.get(a, full.id))
          expect(got).toEqual(expected)
          ;(got.custom as { stage: string }).stage = "changed after get"
          expect(Option.getOrThrow(yield* repo.getForUpdate(a, full.id))).toEqual(expected)
          expect(Option.isNone(yield* repo.get(b, full.id))).toBe(true)
          expect(Option.isNone(yield* repo.get(a, newId(Records.RecordId)))).toBe(true)
          expect(yield* repo.list(b, {}, page(50))).toEqual([])
          expect(yield* repo.getMany(b, [full.id])).toEqual([])
        })
      )

      test(
        "update replaces every changeable field of that organisation's record only",
        Effect.gen(function* () {
          const repo = yield* Records.RecordRepository
          const [a, b] = [organisationId(), organisationId()]
          const original = record({ title: "Before", custom: { n: 1 } })
          yield* repo.insert(a, original)
          const changed: Records.CustomRecord = {
            ...original,
            type_key: "renamed",
            title: null,
            owner_id: newId(Organisation.UserId),
            custom: { n: 2, s: "x" },
            contact_id: newId(Contacts.ContactId),
            company_id: newId(Companies.CompanyId),
            deal_id: newId(Deals.DealId),
            updated_at: at(5)
          }
          yield* repo.update(b, { ...changed, title: "Not theirs" })
          expect(Option.getOrThrow(yield* repo.get(a, original.id))).toEqual(original)
          yield* repo.update(a, changed)
          expect(Option.getOrThrow(yield* repo.get(a, original.id))).toEqual(changed)
          yield* repo.update(a, record())
          expect(ids(yield* repo.list(a, {}, page(50)))).toEqual([original.id])
        })
      )

      test(
        "getMany returns the organisation's records among the ids, and nothing for none",
        Effect.gen(function* () {
          const repo = yield* Records.RecordRepository
          const [a, b] = [organisationId(), organisationId()]
          const [x, y, z] = [record(), record(), record()]
          yield* repo.insert(a, x)
          yield* repo.insert(a, y)
          yield* repo.insert(b, z)
          const found = yield* repo.getMany(a, [x.id, z.id, uuid(), y.id])
          expect(ids(found).sort()).toEqual([x.id, y.id].sort())
          expect(found.find((row) => row.id === x.id)).toEqual(x)
          expect(yield* repo.getMany(a, [])).toEqual([])
        })
      )

      test(
        "lists newest first with ties by id, filtered by type, links and title fragment, one row past the page",
        Effect.gen(function* () {
          const repo = yield* Records.RecordRepository
          const a = organisationId()
          const [typeA, typeB, contact, company, deal] = [
            newId(Records.RecordTypeId),
            newId(Records.RecordTypeId),
            newId(Contacts.ContactId),
            newId(Companies.CompanyId),
            newId(Deals.DealId)
          ]
          const rows = [
            record({ type_id: typeA, title: "Week 1%", contact_id: contact, created_at: at(1) }),
            record({ type_id: typeA, title: "week 2", company_id: company, created_at: at(2) }),
            record({ type_id: typeB, title: "Launch_x", deal_id: deal, created_at: at(3) }),
            record({ type_id: typeB, title: null, created_at: at(3) })
          ]
          for (const row of rows) yield* repo.insert(a, row)
          const [one, two, three, four] = rows as [
            Records.CustomRecord,
            Records.CustomRecord,
            Records.CustomRecord,
            Records.CustomRecord
          ]
          const tied = [three, four].sort((x, y) => (x.id < y.id ? 1 : -1)).map((row) => row.id)
          expect(ids(yield* repo.list(a, {}, page(50)))).toEqual([...tied, two.id, one.id])
          expect(ids(yield* repo.list(a, {}, page(1, 1)))).toEqual(tied.slice(1).concat(two.id))
          expect(ids(yield* repo.list(a, { typeId: typeA }, page(50)))).toEqual([two.id, one.id])
          expect(ids(yield* repo.list(a, { contactId: contact }, page(50)))).toEqual([one.id])
          expect(ids(yield* repo.list(a, { companyId: company }, page(50)))).toEqual([two.id])
          expect(ids(yield* repo.list(a, { dealId: deal }, page(50)))).toEqual([three.id])
          expect(ids(yield* repo.list(a, { q: "WEEK" }, page(50)))).toEqual([two.id, one.id])
          expect(ids(yield* repo.list(a, { q: "%" }, page(50)))).toEqual([one.id])
          expect(ids(yield* repo.list(a, { q: "h_" }, page(50)))).toEqual([three.id])
          expect(ids(yield* repo.list(a, { q: "week", typeId: typeB }, page(50)))).toEqual([])
        })
      )

      concurrent(
        "getForUpdate holds the record until the unit of work that read it commits",
        Effect.gen(function* () {
          const repo = yield* Records.RecordRepository
          const a = organisationId()
          const original = record({ title: "Locked" })
          yield* repo.insert(a, original)
          const changed = { ...original, title: "Changed", updated_at: at(9) }
          yield* expectHeldUntilCommit(repo.getForUpdate(a, original.id), repo.update(a, changed), original, changed)
        })
      )

      test(
        "countHolding: per type and field asked about, how many of the organisation's records hold a value",
        Effect.gen(function* () {
          const repo = yield* Records.RecordRepository
          const [a, b] = [organisationId(), organisationId()]
          const [sheet, project] = [newId(Records.RecordTypeId), newId(Records.RecordTypeId)]
          for (const row of [
            record({ type_id: sheet, custom: { hours: 2, note: "x" } }),
            record({ type_id: sheet, custom: { hours: 0 } }),
            record({ type_id: sheet, custom: {} }),
            // The same key in another type is another field.
            record({ type_id: project, custom: { hours: 5, tags: [] } })
          ]) {
            yield* repo.insert(a, row)
          }
          yield* repo.insert(b, record({ type_id: sheet, custom: { hours: 1, note: "theirs" } }))
          const counts = yield* repo.countHolding(a, [
            { type_id: sheet, field: "hours" },
            { type_id: sheet, field: "note" },
            { type_id: sheet, field: "tags" },
            { type_id: project, field: "tags" },
            { type_id: uuid(), field: "hours" }
          ])
          const key = (row: { type_id: string; field: string }) => `${row.type_id}/${row.field}`
          expect([...counts].sort((x, y) => (key(x) < key(y) ? -1 : 1))).toEqual(
            [
              { type_id: sheet, field: "hours", records: 2 },
              { type_id: sheet, field: "note", records: 1 },
              { type_id: project, field: "tags", records: 1 }
            ].sort((x, y) => (key(x) < key(y) ? -1 : 1))
          )
          expect(yield* repo.countHolding(a, [])).toEqual([])
        })
      )
    })

    describe("FormSubmissionRepository", () => {
      test(
        "counts a form's submissions in all, since a time (inclusive) and those that created their contact",
        Effect.gen(function* () {
          const repo = yield* Forms.FormSubmissionRepository
          const [a, b, form, other] = [organisationId(), organisationId(), newId(Forms.FormId), newId(Forms.FormId)]
          expect(yield* repo.counts(a, form, at(0))).toEqual({
            total: 0,
            last_30_days: 0,
            contacts_created: 0,
            last_submitted_at: null
          })
          yield* repo.insert(a, submission({ form_id: form, contact_created: true, created_at: at(10) }))
          yield* repo.insert(a, submission({ form_id: form, created_at: at(30), fields: { a: [1, { b: null }] } }))
          yield* repo.insert(a, submission({ form_id: form, contact_created: true, created_at: at(20) }))
          yield* repo.insert(a, submission({ form_id: other, contact_created: true, created_at: at(40) }))
          yield* repo.insert(b, submission({ form_id: form, contact_created: true, created_at: at(50) }))
          expect(yield* repo.counts(a, form, at(20))).toEqual({
            total: 3,
            last_30_days: 2,
            contacts_created: 2,
            last_submitted_at: at(30)
          })
          expect((yield* repo.counts(b, form, at(0))).total).toBe(1)
        })
      )

      test(
        "contactOfVisitor is the contact of the latest submission carrying the visitor id, per organisation",
        Effect.gen(function* () {
          const repo = yield* Forms.FormSubmissionRepository
          const [a, b, older, newer] = [
            organisationId(),
            organisationId(),
            newId(Contacts.ContactId),
            newId(Contacts.ContactId)
          ]
          yield* repo.insert(a, submission({ visitor_id: "v", contact_id: newer, created_at: at(20) }))
          yield* repo.insert(a, submission({ visitor_id: "v", contact_id: older, created_at: at(10) }))
          yield* repo.insert(a, submission({ visitor_id: "w", created_at: at(30) }))
          expect(yield* repo.contactOfVisitor(a, "v")).toEqual(Option.some({ contactId: newer, at: at(20) }))
          expect(Option.isNone(yield* repo.contactOfVisitor(b, "v"))).toBe(true)
          expect(Option.isNone(yield* repo.contactOfVisitor(a, "unknown"))).toBe(true)
        })
      )

      test(
        "refuses a second submission with the same id, and a rolled-back insert leaves nothing",
        Effect.gen(function* () {
          const repo = yield* Forms.FormSubmissionRepository
          const tx = yield* Transaction.Transaction
          const [a, form] = [organisationId(), newId(Forms.FormId)]
          const first = submission({ form_id: form })
          yield* repo.insert(a, first)
          const again = yield* Effect.either(repo.insert(a, { ...first, created_at: at(5) }))
          expect(Either.isLeft(again) && again.left).toBeInstanceOf(Errors.StorageError)
          const rolledBack = yield* Effect.either(
            tx.run(
              Effect.zipRight(
                repo.insert(a, submission({ form_id: form })),
                Effect.fail(new Boom({ step: "after the insert" }))
              )
            )
          )
          expect(Either.isLeft(rolledBack)).toBe(true)
          expect((yield* repo.counts(a, form, at(0))).total).toBe(1)
        })
      )
    })

    describe("LeadRepository", () => {
      test(
        "claims a lead once per organisation, provider and id, and then answers what was recorded",
        Effect.gen(function* () {
          const repo = yield* Leads.LeadRepository
          const [a, b] = [organisationId(), organisationId()]
          expect(Option.isNone(yield* repo.claim(a, "facebook", "1", at(0)))).toBe(true)
          const lead: Leads.LeadReceived = {
            provider: "facebook",
            lead_id: "1",
            form_id: null,
            contact_id: newId(Contacts.ContactId),
            created: true
          }
          yield* repo.record(a, lead)
          expect(yield* repo.claim(a, "facebook", "1", at(5))).toEqual(Option.some(lead))
          expect(Option.isNone(yield* repo.claim(a, "linkedin", "1", at(5)))).toBe(true)
          expect(Option.isNone(yield* repo.claim(a, "facebook", "2", at(5)))).toBe(true)
          expect(Option.isNone(yield* repo.claim(b, "facebook", "1", at(5)))).toBe(true)
        })
      )

      test(
        "a claim rolled back with its unit of work leaves the lead unclaimed",
        Effect.gen(function* () {
          const repo = yield* Leads.LeadRepository
          const tx = yield* Transaction.Transaction
          const a = organisationId()
          const lead: Leads.LeadReceived = {
            provider: "p",
            lead_id: "x",
            form_id: null,
            contact_id: newId(Contacts.ContactId),
            created: false
          }
          const rolledBack = yield* Effect.either(
            tx.run(
              Effect.gen(function* () {
                expect(Option.isNone(yield* repo.claim(a, "p", "x", at(0)))).toBe(true)
                yield* repo.record(a, lead)
                return yield* Effect.fail(new Boom({ step: "after recording" }))
              })
            )
          )
          expect(Either.isLeft(rolledBack)).toBe(true)
          expect(Option.isNone(yield* tx.run(repo.claim(a, "p", "x", at(1))))).toBe(true)
        })
      )
    })

    describe("VisitRepository", () => {
      test(
        "contactOfVisitor is the contact of the latest visit of that visitor that had one, per organisation",
        Effect.gen(function* () {
          const repo = yield* Visits.VisitRepository
          const tx = yield* Transaction.Transaction
          const [a, b, older, newer] = [
            organisationId(),
            organisationId(),
            newId(Contacts.ContactId),
            newId(Contacts.ContactId)
          ]
          yield* repo.insert(a, visit({ visitor_id: "v", contact_id: older, created_at: at(10) }))
          yield* repo.insert(a, visit({ visitor_id: "v", contact_id: newer, created_at: at(20), referrer: "r" }))
          yield* repo.insert(a, visit({ visitor_id: "v", created_at: at(30) }))
          yield* repo.insert(a, visit({ created_at: at(40) }))
          expect(yield* repo.contactOfVisitor(a, "v")).toEqual(Option.some({ contactId: newer, at: at(20) }))
          expect(Option.isNone(yield* repo.contactOfVisitor(b, "v"))).toBe(true)
          yield* Effect.either(
            tx.run(
              Effect.zipRight(
                repo.insert(a, visit({ visitor_id: "v", contact_id: newId(Contacts.ContactId), created_at: at(50) })),
                Effect.fail(new Boom({ step: "after the insert" }))
              )
            )
          )
          expect(yield* repo.contactOfVisitor(a, "v")).toEqual(Option.some({ contactId: newer, at: at(20) }))
        })
      )
    })
  })
}
