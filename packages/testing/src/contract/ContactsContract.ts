/**
 * The contact port (`ContactRepository`): rows round-trip whole, live contacts keep their addresses
 * unique per organisation, and lists filter, search and page in one order on every adapter.
 */
import { Companies, Contacts, Events, Forms, Invoicing, Mail, Visits } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import {
  allEvents,
  at,
  bill,
  expectEmailTaken,
  firm,
  ids,
  newestFirst,
  newId,
  page,
  person,
  type StoragePorts,
  seed
} from "./Fixtures.js"

type Contact = Contacts.Contact

const buyerOf = (name: string, email: string): Invoicing.Buyer => ({
  name,
  email,
  vat_number: null,
  city: null,
  country: null
})

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test } = contractCases(makeLayer, options)

  describe(`ContactRepository storage contract: ${name}`, () => {
    test(
      "round-trips every field, and only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const company = firm({ name: "Lee Ltd" })
        yield* (yield* Companies.CompanyRepository).insert(a.id, company)
        const ann = person({
          first_name: "Ann",
          last_name: "Lee",
          email: "ann@example.com",
          phone: "+420 123 456 789",
          company_id: company.id,
          status: "customer",
          source: "web form",
          custom: { tier: "gold", score: 3, tags: ["vip", "b2b"], nested: { ok: true, none: null } },
          created_at: at(1),
          updated_at: at(2)
        })
        const expected = structuredClone(ann)
        yield* repo.insert(a.id, ann)
        // What is stored must not alias the caller's objects, in either direction.
        ;(ann.custom as { tier: string }).tier = "changed after insert"
        const got = Option.getOrThrow(yield* repo.get(a.id, ann.id))
        expect(got).toEqual(expected)
        ;(got.custom as { tier: string }).tier = "changed after get"
        expect(Option.getOrThrow(yield* repo.get(a.id, ann.id))).toEqual(expected)

        expect(Option.isNone(yield* repo.get(b.id, ann.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, newId(Contacts.ContactId)))).toBe(true)
        expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([ann.id])
        expect(yield* repo.countLive(a.id)).toBe(1)
        expect(yield* repo.countLive(b.id)).toBe(0)
      })
    )

    test(
      "update replaces the fields; another organisation can neither change nor see it",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const ann = person({ first_name: "Ann", email: "ann@example.com", custom: { a: 1 } })
        yield* repo.insert(a.id, ann)
        const changed: Contact = {
          ...ann,
          first_name: "Anna",
          last_name: "Lee",
          email: null,
          phone: "123",
          status: "prospect",
          source: "import",
          custom: { b: [1, 2] },
          updated_at: at(10)
        }
        yield* repo.update(a.id, changed)
        expect(Option.getOrThrow(yield* repo.get(a.id, ann.id))).toEqual(changed)

        yield* Effect.either(repo.update(b.id, { ...changed, first_name: "Mallory" }))
        expect(Option.getOrThrow(yield* repo.get(a.id, ann.id))).toEqual(changed)
        expect(Option.isNone(yield* repo.get(b.id, ann.id))).toBe(true)
        expect(yield* repo.countLive(b.id)).toBe(0)
      })
    )

    test(
      "archive hides the contact from get, list and countLive, once, and only in its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const ann = person({ first_name: "Ann", created_at: at(1) })
        const bob = person({ first_name: "Bob", created_at: at(2) })
        yield* repo.insert(a.id, ann)
        yield* repo.insert(a.id, bob)

        expect(yield* repo.archive(b.id, ann.id, at(5))).toBe(false)
        expect(Option.isSome(yield* repo.get(a.id, ann.id))).toBe(true)

        expect(yield* repo.archive(a.id, ann.id, at(5))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([bob.id])
        expect(ids(yield* repo.list(a.id, { q: "ann" }, page(50)))).toEqual([])
        expect(yield* repo.countLive(a.id)).toBe(1)

        expect(yield* repo.archive(a.id, ann.id, at(6))).toBe(false)
        expect(yield* repo.archive(a.id, newId(Contacts.ContactId), at(6))).toBe(false)

        // An update never brings an archived contact back.
        yield* Effect.either(repo.update(a.id, { ...ann, first_name: "Ghost", updated_at: at(7) }))
        expect(Option.isNone(yield* repo.get(a.id, ann.id))).toBe(true)
        expect(yield* repo.countLive(a.id)).toBe(1)
      })
    )

    test(
      "at most one live contact per address, and the refusal names the holder",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const holder = person({ first_name: "Ann", email: "ann@example.com" })
        yield* repo.insert(a.id, holder)

        const second = person({ first_name: "Other Ann", email: "ann@example.com" })
        const refused = yield* Effect.flip(repo.insert(a.id, second))
        expectEmailTaken(refused, holder.id)
        expect(Option.isNone(yield* repo.get(a.id, second.id))).toBe(true)
        expect(yield* repo.countLive(a.id)).toBe(1)

        // The rule is per organisation, and a missing address never conflicts.
        yield* repo.insert(b.id, person({ email: "ann@example.com" }))
        yield* repo.insert(a.id, person({ first_name: "No mail 1" }))
        yield* repo.insert(a.id, person({ first_name: "No mail 2" }))
        expect(yield* repo.countLive(a.id)).toBe(3)
        expect(yield* repo.countLive(b.id)).toBe(1)
      })
    )

    test(
      "archiving frees the address for a new contact",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const first = person({ email: "ann@example.com" })
        yield* repo.insert(a.id, first)
        expect(yield* repo.archive(a.id, first.id, at(1))).toBe(true)
        const next = person({ email: "ann@example.com", created_at: at(2), updated_at: at(2) })
        yield* repo.insert(a.id, next)
        expect(Option.getOrThrow(yield* repo.get(a.id, next.id))).toEqual(next)
        expect(ids(yield* repo.list(a.id, { email: "ann@example.com" }, page(50)))).toEqual([next.id])
      })
    )

    test(
      "an update to an address held by another live contact is refused; keeping or leaving one's own is not",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const x = person({ first_name: "X", email: "x@example.com" })
        const y = person({ first_name: "Y", email: "y@example.com" })
        yield* repo.insert(a.id, x)
        yield* repo.insert(a.id, y)

        const refused = yield* Effect.flip(repo.update(a.id, { ...y, email: "x@example.com", updated_at: at(1) }))
        expectEmailTaken(refused, x.id)
        expect(Option.getOrThrow(yield* repo.get(a.id, y.id))).toEqual(y)

        const renamed = { ...x, first_name: "Xavier", updated_at: at(2) }
        yield* repo.update(a.id, renamed)
        expect(Option.getOrThrow(yield* repo.get(a.id, x.id))).toEqual(renamed)

        // Moving to a new address frees the old one.
        yield* repo.update(a.id, { ...y, email: "z@example.com", updated_at: at(3) })
        yield* repo.insert(a.id, person({ email: "y@example.com" }))
        const stillTaken = yield* Effect.flip(repo.insert(a.id, person({ email: "z@example.com" })))
        expectEmailTaken(stillTaken, y.id)
      })
    )

    test(
      "list filters: exact email, status, updated_since (inclusive), q over each field, all combined",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const ann = person({
          first_name: "Ann",
          last_name: "Smith",
          email: "ann@example.com",
          phone: "+1 555 0100",
          status: "lead",
          created_at: at(1),
          updated_at: at(100)
        })
        const joann = person({
          first_name: "Joann",
          last_name: "Brown",
          email: "joann@example.com",
          phone: "+1 555 0200",
          status: "customer",
          created_at: at(2),
          updated_at: at(200)
        })
        const bob = person({
          first_name: "Bob",
          last_name: "Annable",
          email: "bob@other.org",
          status: "customer",
          created_at: at(3),
          updated_at: at(300)
        })
        const carl = person({
          email: "carl@x.io",
          phone: "+420 999 888",
          status: "prospect",
          created_at: at(4),
          updated_at: at(400)
        })
        const annie = person({
          first_name: "Annie",
          email: "annie@example.com",
          status: "customer",
          created_at: at(5),
          updated_at: at(500)
        })
        for (const contact of [ann, joann, bob, carl, annie]) yield* repo.insert(a.id, contact)
        yield* repo.insert(
          b.id,
          person({ first_name: "Ann", email: "ann@example.com", status: "customer", created_at: at(6) })
        )
        expect(yield* repo.archive(a.id, annie.id, at(600))).toBe(true)

        const list = (filter: Contacts.ContactFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
        expect(yield* list({})).toEqual(ids([carl, bob, joann, ann]))
        expect(yield* list({ email: "ann@example.com" })).toEqual([ann.id])
        expect(yield* list({ email: "annie@example.com" })).toEqual([])
        expect(yield* list({ email: "nobody@example.com" })).toEqual([])
        expect(yield* list({ status: "customer" })).toEqual(ids([bob, joann]))
        expect(yield* list({ status: "inactive" })).toEqual([])
        expect(yield* list({ updatedSince: at(200) })).toEqual(ids([carl, bob, joann]))
        expect(yield* list({ updatedSince: at(201) })).toEqual(ids([carl, bob]))
        expect(yield* list({ updatedSince: at(401) })).toEqual([])
        expect(yield* list({ q: "ann" })).toEqual(ids([bob, joann, ann]))
        expect(yield* list({ q: "ANN" })).toEqual(ids([bob, joann, ann]))
        expect(yield* list({ q: "smith" })).toEqual([ann.id])
        expect(yield* list({ q: "@EXAMPLE.com" })).toEqual(ids([joann, ann]))
        expect(yield* list({ q: "999 8" })).toEqual([carl.id])
        expect(yield* list({ q: "555" })).toEqual(ids([joann, ann]))
        expect(yield* list({ q: "nothing like it" })).toEqual([])
        expect(yield* list({ status: "customer", q: "ann" })).toEqual(ids([bob, joann]))
        expect(yield* list({ status: "customer", q: "ann", updatedSince: at(250) })).toEqual([bob.id])
        expect(yield* list({ email: "ann@example.com", status: "customer" })).toEqual([])
        expect(
          yield* list({ email: "joann@example.com", status: "customer", updatedSince: at(200), q: "brown" })
        ).toEqual([joann.id])
      })
    )

    test(
      "q matches %, _, * and \\ literally",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const names = ["100% sure", "1000 sure", "a_b", "axb", "star*", "starry", "back\\slash", "backslash"]
        const byName = new Map<string, string>()
        for (const [i, first_name] of names.entries()) {
          const contact = person({ first_name, created_at: at(i) })
          byName.set(first_name, contact.id)
          yield* repo.insert(a.id, contact)
        }
        const q = (text: string) =>
          Effect.map(repo.list(a.id, { q: text }, page(50)), (rows) => rows.map((row) => row.first_name).sort())
        expect(yield* q("%")).toEqual(["100% sure"])
        expect(yield* q("0% s")).toEqual(["100% sure"])
        expect(yield* q("_")).toEqual(["a_b"])
        expect(yield* q("a_b")).toEqual(["a_b"])
        expect(yield* q("*")).toEqual(["star*"])
        expect(yield* q("r*")).toEqual(["star*"])
        expect(yield* q("\\")).toEqual(["back\\slash"])
        expect(yield* q("k\\s")).toEqual(["back\\slash"])
        expect(yield* q("%%")).toEqual([])
      })
    )

    test(
      "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const times = [0, 10, 10, 10, 20, 30, 30, 10]
        const contacts = times.map((t, i) =>
          person({ first_name: `P${i}`, created_at: at(t), updated_at: at(100 - t) })
        )
        for (const contact of contacts) yield* repo.insert(a.id, contact)
        const expected = ids(newestFirst(contacts))

        expect(ids(yield* repo.list(a.id, {}, page(100)))).toEqual(expected)
        expect(ids(yield* repo.list(a.id, {}, page(3)))).toEqual(expected.slice(0, 4))
        expect(ids(yield* repo.list(a.id, {}, page(3, 3)))).toEqual(expected.slice(3, 7))
        expect(ids(yield* repo.list(a.id, {}, page(3, 6)))).toEqual(expected.slice(6, 8))
        expect(ids(yield* repo.list(a.id, {}, page(3, 8)))).toEqual([])
        expect(ids(yield* repo.list(a.id, {}, page(1, 7)))).toEqual(expected.slice(7))
        expect(ids(yield* repo.list(a.id, {}, page(8)))).toEqual(expected)

        // Walking the pages as a client does visits every contact exactly once, in order.
        const walked: Array<string> = []
        for (let offset = 0; ; offset += 2) {
          const rows = yield* repo.list(a.id, {}, page(2, offset))
          walked.push(...ids(rows.slice(0, 2)))
          if (rows.length <= 2) break
        }
        expect(walked).toEqual(expected)
      })
    )
    test(
      "erases a person everywhere it was copied, keeps issued invoices, and repeats as a no-op",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Contacts.ContactRepository
        const invoices = yield* Invoicing.InvoiceRepository
        const outbox = yield* Mail.MailOutbox
        const erin = person({ first_name: "Erin", last_name: "Erasmus", email: "erin@example.com", phone: "+1 555" })
        const other = person({ first_name: "Olga", email: "olga@example.com" })
        yield* repo.insert(a.id, { ...erin, custom: { secret: "gold" } })
        yield* repo.insert(a.id, other)
        const form = newId(Forms.FormId)
        yield* (yield* Forms.FormSubmissionRepository).insert(a.id, {
          id: newId(Forms.SubmissionId),
          form_id: form,
          contact_id: erin.id,
          contact_created: true,
          fields: { email: "erin@example.com", message: "call me" },
          visitor_id: "v-erin",
          created_at: at(1)
        })
        yield* (yield* Visits.VisitRepository).insert(a.id, {
          id: newId(Visits.VisitId),
          url: "https://example.com/",
          referrer: null,
          visitor_id: "v-erin-2",
          contact_id: erin.id,
          occurred_at: at(1),
          created_at: at(1)
        })
        const message = (to: string): Mail.MailMessage => ({
          id: newId(Mail.MailMessageId),
          to,
          subject: "Shipped",
          body: `Dear ${to}`,
          withheld: false,
          status: "sent",
          attempts: 1,
          last_error: null,
          next_attempt_at: null,
          created_at: at(1),
          sent_at: at(1)
        })
        yield* outbox.enqueue(a.id, message("Erin@Example.com"))
        yield* outbox.enqueue(a.id, message("olga@example.com"))
        const issued = bill({
          number: "2026-000001",
          status: "issued",
          contact_id: erin.id,
          buyer: buyerOf("Erin Erasmus", "erin@example.com")
        })
        const draft = bill({ contact_id: erin.id, buyer: buyerOf("Erin Erasmus", "erin@example.com") })
        yield* invoices.insert(a.id, issued)
        yield* invoices.insert(a.id, draft)
        yield* (yield* Events.EventLog).append(
          a.id,
          [
            {
              event: "contact.created",
              data: { id: erin.id, first_name: "Erin", email: "erin@example.com", custom: { secret: "gold" } }
            },
            { event: "form.submitted", data: { form_id: form, contact_id: erin.id, fields: { message: "call me" } } },
            {
              event: "contact.created",
              data: { id: other.id, first_name: "Olga", email: "olga@example.com", custom: {} }
            }
          ],
          at(2)
        )

        // Another organisation never reaches the person.
        expect(yield* repo.erase(b.id, erin.id, at(3))).toEqual(Option.none())
        const outcome = Option.getOrThrow(yield* repo.erase(a.id, erin.id, at(3)))
        expect(outcome).toEqual({
          changed: true,
          kept: [{ what: "invoice", id: issued.id, reason: Contacts.ISSUED_INVOICE_REASON }]
        })

        expect(yield* repo.get(a.id, erin.id)).toEqual(Option.none())
        const stored = yield* repo.list(a.id, {}, { ...page(10), include_archived: true })
        expect(stored.find((row) => row.id === erin.id)).toMatchObject({
          first_name: null,
          last_name: null,
          email: null,
          phone: null,
          source: null,
          custom: {},
          updated_at: at(3)
        })
        const text = JSON.stringify([stored, yield* allEvents(a.id), yield* outbox.list(a.id, {}, page(10))])
        for (const value of ["Erin", "Erasmus", "erin@example.com", "+1 555", "gold", "call me"]) {
          expect(text.toLowerCase()).not.toContain(value.toLowerCase())
        }
        expect(text).toContain("olga@example.com")
        const [created, submitted] = yield* allEvents(a.id)
        expect(created!.data).toEqual({ id: erin.id, first_name: null, email: null, custom: {} })
        expect(submitted!.data).toEqual({ form_id: form, contact_id: erin.id, fields: {} })
        const submissions = yield* Forms.FormSubmissionRepository
        expect((yield* submissions.counts(a.id, form, at(0))).total).toBe(1)
        expect(yield* submissions.contactOfVisitor(a.id, "v-erin")).toEqual(Option.none())
        expect(yield* (yield* Visits.VisitRepository).contactOfVisitor(a.id, "v-erin-2")).toEqual(Option.none())
        expect(Option.getOrThrow(yield* invoices.get(a.id, issued.id)).buyer).toEqual(issued.buyer)
        expect(Option.getOrThrow(yield* invoices.get(a.id, draft.id)).buyer).toMatchObject({ name: null, email: null })
        // The address is free again.
        yield* repo.insert(a.id, person({ email: "erin@example.com" }))

        const again = Option.getOrThrow(yield* repo.erase(a.id, erin.id, at(4)))
        expect(again).toEqual({ changed: false, kept: outcome.kept })
        expect(yield* repo.erase(a.id, newId(Contacts.ContactId), at(4))).toEqual(Option.none())
      })
    )
  })
}
