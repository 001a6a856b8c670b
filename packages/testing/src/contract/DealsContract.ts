/**
 * The deal port (`DealRepository`): rows round-trip exactly, lists filter and page, stage visits
 * form a history, and `getForUpdate` holds a deal until its unit of work commits.
 */
import { Access, Companies, Contacts, Deals, Money, Organisation } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import {
  amount,
  at,
  expectHeldUntilCommit,
  ids,
  newestFirst,
  newId,
  opportunity,
  organisationId,
  page,
  type StoragePorts,
  seed,
  stagesOf,
  uuid
} from "./Fixtures.js"

type Deal = Deals.Deal
type StageVisit = Deals.StageVisit

/** The visit that records a deal's creation in its current stage; overrides make it a move. */
const visit = (deal: Deal, overrides: Partial<StageVisit> = {}): StageVisit => ({
  deal_id: deal.id,
  pipeline_id: deal.pipeline_id,
  from_status_id: null,
  status_id: deal.status_id,
  status_kind: deal.status_kind,
  entered_at: deal.created_at,
  left_at: null,
  key_id: null,
  ...overrides
})

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test, concurrent } = contractCases(makeLayer, options)

  describe(`DealRepository storage contract: ${name}`, () => {
    test(
      "round-trips every field (decimal and null values, date-only close date), and only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Deals.DealRepository
        const stages = stagesOf(a)
        const full = opportunity(a, {
          title: "Rollout 2027",
          value: amount(1234.5),
          currency: "CZK",
          status_id: stages.lost,
          status_kind: "lost",
          contact_id: newId(Contacts.ContactId),
          company_id: newId(Companies.CompanyId),
          owner_id: newId(Organisation.UserId),
          expected_close_date: "2026-12-31",
          lost_reason: "went with a competitor",
          closed_at: at(3),
          custom: { source: "fair", seats: 40, tags: ["b2b"], nested: { ok: true, none: null } },
          created_at: at(1),
          updated_at: at(2)
        })
        const bare = opportunity(a, { title: "Bare", created_at: at(4), updated_at: at(4) })
        const expected = structuredClone(full)
        yield* repo.insert(a.id, full)
        yield* repo.insert(a.id, bare)
        // What is stored must not alias the caller's objects, in either direction.
        ;(full.custom as { source: string }).source = "changed after insert"
        const got = Option.getOrThrow(yield* repo.get(a.id, full.id))
        expect(got).toEqual(expected)
        ;(got.custom as { source: string }).source = "changed after get"
        expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(expected)
        expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(expected)
        expect(Option.getOrThrow(yield* repo.get(a.id, bare.id))).toEqual(bare)
        expect(yield* repo.list(a.id, {}, page(50))).toEqual([bare, expected])

        // Values are exact, whatever their size or decimals; dates stay the calendar day they were.
        const edges = [
          opportunity(a, { value: amount(0), expected_close_date: "2026-01-01" }),
          opportunity(a, { value: amount(0.07), expected_close_date: "2027-06-30" }),
          opportunity(a, { value: amount(99_999_999.99), expected_close_date: "1999-12-31" }),
          opportunity(a, { value: amount(1e15), expected_close_date: "2100-02-28" })
        ]
        for (const deal of edges) yield* repo.insert(a.id, deal)
        for (const deal of edges) expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(deal)
        expect(edges.map((deal) => deal.value)).toEqual(["0", "0.07", "99999999.99", "1000000000000000"])

        expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)
        expect(Option.isNone(yield* repo.getForUpdate(b.id, full.id))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, newId(Deals.DealId)))).toBe(true)
        expect(Option.isNone(yield* repo.getForUpdate(a.id, newId(Deals.DealId)))).toBe(true)
        expect(yield* repo.list(b.id, {}, page(50))).toEqual([])
      })
    )

    test(
      "an amount with more digits than a double carries is stored and read back as the same text",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Deals.DealRepository
        // A double holds about 16 significant digits: Number("123456789012345678.01") is 123456789012345680.
        const wide = [
          Money.AmountText.parse("123456789012345678.01"),
          Money.AmountText.parse("-0.000000000000000000123"),
          Money.AmountText.parse("100000000000000000000000000000.5")
        ]
        const deals = wide.map((value, i) => opportunity(a, { title: `Wide ${i}`, value, created_at: at(i) }))
        for (const deal of deals) yield* repo.insert(a.id, deal)
        for (const deal of deals) {
          const got = Option.getOrThrow(yield* repo.get(a.id, deal.id))
          expect(got).toEqual(deal)
          expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, deal.id)).value).toBe(deal.value)
        }
        expect((yield* repo.list(a.id, {}, page(50))).map((deal) => deal.value)).toEqual([...wide].reverse())

        // An update writes it exactly too.
        const changed = { ...deals[0]!, value: Money.AmountText.parse("-98765432109876543.21"), updated_at: at(9) }
        yield* repo.update(a.id, changed)
        expect(Option.getOrThrow(yield* repo.get(a.id, changed.id)).value).toBe("-98765432109876543.21")
      })
    )

    test(
      "update replaces the fields; archive hides the deal from get, getForUpdate and list; neither crosses organisations",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Deals.DealRepository
        const stages = stagesOf(a)
        const deal = opportunity(a, { title: "Rollout", value: amount(10), created_at: at(1), updated_at: at(1) })
        const other = opportunity(a, { title: "Other", created_at: at(2), updated_at: at(2) })
        yield* repo.insert(a.id, deal)
        yield* repo.insert(a.id, other)

        const won: Deal = {
          ...deal,
          title: "Rollout, signed",
          value: amount(2500.25),
          currency: "USD",
          status_id: stages.won,
          status_kind: "won",
          contact_id: newId(Contacts.ContactId),
          company_id: newId(Companies.CompanyId),
          owner_id: newId(Organisation.UserId),
          expected_close_date: "2026-03-15",
          lost_reason: "kept from an earlier loss",
          closed_at: at(10),
          custom: { po: "PO-7" },
          updated_at: at(10)
        }
        yield* repo.update(a.id, won)
        expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(won)
        // Clearing goes back to nulls.
        const reopened: Deal = {
          ...won,
          value: null,
          status_id: stages.open,
          status_kind: "open",
          contact_id: null,
          company_id: null,
          owner_id: null,
          expected_close_date: null,
          lost_reason: null,
          closed_at: null,
          custom: {},
          updated_at: at(11)
        }
        yield* repo.update(a.id, reopened)
        expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(reopened)

        yield* Effect.either(repo.update(b.id, { ...reopened, title: "Hijacked" }))
        expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(reopened)
        expect(yield* repo.archive(b.id, deal.id, at(20))).toBe(false)
        expect(Option.isSome(yield* repo.get(a.id, deal.id))).toBe(true)

        expect(yield* repo.archive(a.id, deal.id, at(20))).toBe(true)
        expect(Option.isNone(yield* repo.get(a.id, deal.id))).toBe(true)
        expect(Option.isNone(yield* repo.getForUpdate(a.id, deal.id))).toBe(true)
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([other.id])
        expect(ids(yield* repo.list(a.id, { statusKind: "open" }, page(50)))).toEqual([other.id])
        expect(yield* repo.archive(a.id, deal.id, at(21))).toBe(false)
        expect(yield* repo.archive(a.id, newId(Deals.DealId), at(21))).toBe(false)

        // An update never brings an archived deal back.
        yield* Effect.either(repo.update(a.id, { ...reopened, title: "Ghost", updated_at: at(22) }))
        expect(Option.isNone(yield* repo.get(a.id, deal.id))).toBe(true)
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual([other.id])
      })
    )

    test(
      "list filters: status_kind, contact_id, company_id, pipeline_id, each alone and combined",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Deals.DealRepository
        const stages = stagesOf(a)
        const [ann, bob, acme] = [newId(Contacts.ContactId), newId(Contacts.ContactId), newId(Companies.CompanyId)]
        const otherPipeline = newId(Deals.PipelineId)
        const open1 = opportunity(a, { contact_id: ann, company_id: acme, created_at: at(1) })
        const open2 = opportunity(a, { contact_id: bob, created_at: at(2) })
        const won = opportunity(a, {
          status_id: stages.won,
          status_kind: "won",
          contact_id: ann,
          closed_at: at(30),
          created_at: at(3)
        })
        const lost = opportunity(a, {
          status_id: stages.lost,
          status_kind: "lost",
          company_id: acme,
          closed_at: at(40),
          created_at: at(4)
        })
        const elsewhere = opportunity(a, {
          pipeline_id: otherPipeline,
          status_id: newId(Deals.StageId),
          contact_id: ann,
          company_id: acme,
          created_at: at(5)
        })
        const gone = opportunity(a, { contact_id: ann, company_id: acme, created_at: at(6) })
        for (const deal of [open1, open2, won, lost, elsewhere, gone]) yield* repo.insert(a.id, deal)
        yield* repo.insert(b.id, opportunity(b, { contact_id: ann, company_id: acme, created_at: at(7) }))
        expect(yield* repo.archive(a.id, gone.id, at(60))).toBe(true)

        const list = (filter: Deals.DealFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
        expect(yield* list({})).toEqual(ids([elsewhere, lost, won, open2, open1]))
        expect(yield* list({ statusKind: "open" })).toEqual(ids([elsewhere, open2, open1]))
        expect(yield* list({ statusKind: "won" })).toEqual([won.id])
        expect(yield* list({ statusKind: "lost" })).toEqual([lost.id])
        expect(yield* list({ contactId: ann })).toEqual(ids([elsewhere, won, open1]))
        expect(yield* list({ contactId: bob })).toEqual([open2.id])
        expect(yield* list({ contactId: newId(Contacts.ContactId) })).toEqual([])
        expect(yield* list({ companyId: acme })).toEqual(ids([elsewhere, lost, open1]))
        expect(yield* list({ pipelineId: stages.pipeline })).toEqual(ids([lost, won, open2, open1]))
        expect(yield* list({ pipelineId: otherPipeline })).toEqual([elsewhere.id])
        expect(yield* list({ statusKind: "open", contactId: ann })).toEqual(ids([elsewhere, open1]))
        expect(yield* list({ statusKind: "open", contactId: ann, pipelineId: stages.pipeline })).toEqual([open1.id])
        expect(yield* list({ contactId: ann, companyId: acme })).toEqual(ids([elsewhere, open1]))
        expect(
          yield* list({ statusKind: "lost", companyId: acme, contactId: ann, pipelineId: stages.pipeline })
        ).toEqual([])
      })
    )

    test(
      "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Deals.DealRepository
        const deals = [5, 5, 5, 1, 9, 5].map((t, i) => opportunity(a, { title: `D${i}`, created_at: at(t) }))
        for (const deal of deals) yield* repo.insert(a.id, deal)
        const expected = ids(newestFirst(deals))
        expect(ids(yield* repo.list(a.id, {}, page(50)))).toEqual(expected)
        expect(ids(yield* repo.list(a.id, {}, page(2)))).toEqual(expected.slice(0, 3))
        expect(ids(yield* repo.list(a.id, {}, page(2, 2)))).toEqual(expected.slice(2, 5))
        expect(ids(yield* repo.list(a.id, {}, page(2, 4)))).toEqual(expected.slice(4))
        expect(ids(yield* repo.list(a.id, {}, page(2, 6)))).toEqual([])
        expect(ids(yield* repo.list(a.id, { statusKind: "open" }, page(3, 1)))).toEqual(expected.slice(1, 5))
      })
    )

    test(
      "enterStage closes the open visit where the next begins; history is the deal's visits, oldest first",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Deals.DealRepository
        const stages = stagesOf(a)
        const [creator, mover] = [newId(Access.KeyId), newId(Access.KeyId)]
        const deal = opportunity(a, { created_at: at(10), updated_at: at(10) })
        const neighbour = opportunity(a, { created_at: at(15), updated_at: at(15) })
        yield* repo.insert(a.id, deal)
        yield* repo.insert(a.id, neighbour)

        const created = visit(deal, { key_id: creator })
        yield* repo.enterStage(a.id, created)
        yield* repo.enterStage(a.id, visit(neighbour))
        expect(yield* repo.history(a.id, deal.id)).toEqual([created])

        const lost = visit(deal, {
          from_status_id: stages.open,
          status_id: stages.lost,
          status_kind: "lost",
          entered_at: at(20),
          key_id: mover
        })
        const won = visit(deal, {
          from_status_id: stages.lost,
          status_id: stages.won,
          status_kind: "won",
          entered_at: at(30)
        })
        yield* repo.enterStage(a.id, lost)
        yield* repo.enterStage(a.id, won)

        const history = yield* repo.history(a.id, deal.id)
        expect(history).toEqual([{ ...created, left_at: at(20) }, { ...lost, left_at: at(30) }, won])
        expect(history.filter((stay) => stay.left_at === null)).toHaveLength(1)

        // Only that deal's visits, and only in its organisation.
        expect(yield* repo.history(a.id, neighbour.id)).toEqual([visit(neighbour)])
        expect(yield* repo.history(b.id, deal.id)).toEqual([])
        expect(yield* repo.history(a.id, newId(Deals.DealId))).toEqual([])
        const foreign = visit(deal, { status_id: newId(Deals.StageId), entered_at: at(40) })
        yield* repo.enterStage(b.id, foreign)
        expect(yield* repo.history(a.id, deal.id)).toEqual(history)
        expect(yield* repo.history(b.id, deal.id)).toEqual([foreign])
      })
    )

    test(
      "history keeps the order of recording between visits entered at the same instant",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Deals.DealRepository
        const stages = stagesOf(a)
        const deal = opportunity(a, { created_at: at(5) })
        yield* repo.insert(a.id, deal)
        const created = visit(deal)
        const won = visit(deal, {
          from_status_id: stages.open,
          status_id: stages.won,
          status_kind: "won",
          entered_at: at(5)
        })
        const lost = visit(deal, {
          from_status_id: stages.won,
          status_id: stages.lost,
          status_kind: "lost",
          entered_at: at(5)
        })
        for (const stay of [created, won, lost]) yield* repo.enterStage(a.id, stay)
        expect(yield* repo.history(a.id, deal.id)).toEqual([
          { ...created, left_at: at(5) },
          { ...won, left_at: at(5) },
          lost
        ])
      })
    )

    concurrent(
      "getForUpdate in a unit of work holds the deal until the unit commits",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Deals.DealRepository
        const deal = opportunity(a, { title: "Contended", value: amount(100) })
        yield* repo.insert(a.id, deal)
        const changed = { ...deal, title: "Changed by the first unit", value: amount(200), updated_at: at(1) }
        yield* expectHeldUntilCommit(repo.getForUpdate(a.id, deal.id), repo.update(a.id, changed), deal, changed)
        expect(Option.getOrThrow(yield* repo.get(a.id, deal.id))).toEqual(changed)
      })
    )

    test(
      "countByStage: how many live deals stand in each stage asked about, only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Deals.DealRepository
        const stages = stagesOf(a)
        const won = { status_id: stages.won, status_kind: "won" as const }
        const archived = opportunity(a, won)
        const lost = opportunity(a, { status_id: stages.lost, status_kind: "lost" })
        for (const deal of [opportunity(a), opportunity(a), opportunity(a, won), lost, archived]) {
          yield* repo.insert(a.id, deal)
        }
        yield* repo.archive(a.id, archived.id, at(1))
        // Another organisation's deal never counts, whatever stage id it holds.
        yield* repo.insert(b.id, opportunity(a, won))
        const counts = yield* repo.countByStage(a.id, [stages.open, stages.won, uuid()])
        expect([...counts].sort((x, y) => (x.status_id < y.status_id ? -1 : 1))).toEqual(
          [
            { status_id: stages.open, deals: 2 },
            { status_id: stages.won, deals: 1 }
          ].sort((x, y) => (x.status_id < y.status_id ? -1 : 1))
        )
        expect(yield* repo.countByStage(a.id, [])).toEqual([])
        expect(yield* repo.countByStage(organisationId(), [stages.open])).toEqual([])
      })
    )
  })
}
