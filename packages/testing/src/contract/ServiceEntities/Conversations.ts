/** The service entities storage contract, what customers said: survey answers and calls. */
import { Calls, Contacts, Deals, Surveys } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Cases } from "../ContractCases.js"
import {
  at,
  expectHeldUntilCommit,
  expectNewestFirstPages,
  ids,
  newId,
  page,
  type StoragePorts,
  seed
} from "../Fixtures.js"

type SurveyResponse = Surveys.SurveyResponse
type Call = Calls.Call

const answer = (overrides: Partial<SurveyResponse> = {}): SurveyResponse => ({
  id: newId(Surveys.SurveyResponseId),
  survey_id: newId(Surveys.SurveyId),
  kind: "nps",
  score: 9,
  comment: null,
  contact_id: newId(Contacts.ContactId),
  deal_id: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

const call = (overrides: Partial<Call> = {}): Call => ({
  id: newId(Calls.CallId),
  provider: "twilio",
  external_id: null,
  direction: "inbound",
  status: "completed",
  duration_seconds: 61,
  from_number: "+420600000001",
  to_number: "+420600000002",
  contact_id: null,
  recording_url: null,
  started_at: at(0),
  transcript: null,
  summary: null,
  created_at: at(0),
  updated_at: at(0),
  ...overrides
})

export const conversationCases = ({ test, concurrent }: Cases<StoragePorts>): void => {
  describe("SurveyResponseRepository", () => {
    test(
      "round-trips every field, filters by survey, kind, contact and deal, only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Surveys.SurveyResponseRepository
        const [survey, ann, deal] = [newId(Surveys.SurveyId), newId(Contacts.ContactId), newId(Deals.DealId)]
        const r1 = answer({ survey_id: survey, kind: "nps", score: 0, contact_id: ann, created_at: at(1) })
        const r2 = answer({
          survey_id: survey,
          kind: "nps",
          score: 10,
          comment: 'Great "support"\nthanks ✓',
          deal_id: deal,
          created_at: at(2)
        })
        const r3 = answer({ kind: "csat", score: 4, contact_id: ann, deal_id: deal, created_at: at(3) })
        const r4 = answer({ kind: "ces", score: 7, created_at: at(4) })
        for (const row of [r1, r2, r3, r4]) yield* repo.insert(a.id, row)
        yield* repo.insert(b.id, answer({ survey_id: survey, contact_id: ann, created_at: at(5) }))

        expect(Option.getOrThrow(yield* repo.get(a.id, r2.id))).toEqual(r2)
        expect(Option.isNone(yield* repo.get(b.id, r2.id))).toBe(true)
        const list = (filter: Surveys.SurveyResponseFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
        expect(yield* repo.list(a.id, {}, page(50))).toEqual([r4, r3, r2, r1])
        expect(yield* list({ surveyId: survey })).toEqual(ids([r2, r1]))
        expect(yield* list({ kind: "nps" })).toEqual(ids([r2, r1]))
        expect(yield* list({ kind: "ces" })).toEqual([r4.id])
        expect(yield* list({ contactId: ann })).toEqual(ids([r3, r1]))
        expect(yield* list({ dealId: deal })).toEqual(ids([r3, r2]))
        expect(yield* list({ dealId: deal, contactId: ann, kind: "csat" })).toEqual([r3.id])
        expect(yield* list({ surveyId: survey, kind: "csat" })).toEqual([])
      })
    )

    test(
      "order is newest created_at first with ties by id descending; pages hold at most limit + 1 rows",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Surveys.SurveyResponseRepository
        yield* expectNewestFirstPages(
          (created_at) => answer({ created_at }),
          (row) => repo.insert(a.id, row),
          (limit, offset) => repo.list(a.id, {}, page(limit, offset))
        )
      })
    )
  })

  describe("CallRepository", () => {
    test(
      "round-trips every field, updates in place, filters by contact, direction and status, only within its organisation",
      Effect.gen(function* () {
        const { a, b } = yield* seed
        const repo = yield* Calls.CallRepository
        const ann = newId(Contacts.ContactId)
        const full = call({
          provider: "aircall",
          external_id: "CA-123",
          direction: "outbound",
          status: "completed",
          duration_seconds: 3599,
          contact_id: ann,
          recording_url: "https://recordings.example.com/ca-123.mp3?sig=a%20b",
          started_at: at(-60_000),
          created_at: at(1),
          updated_at: at(1)
        })
        const missed = call({ status: "missed", duration_seconds: 0, contact_id: ann, created_at: at(2) })
        const busy = call({ status: "busy", direction: "outbound", created_at: at(3) })
        for (const row of [full, missed, busy]) yield* repo.insert(a.id, row)
        yield* repo.insert(b.id, call({ contact_id: ann, created_at: at(4) }))
        expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(full)
        expect(Option.getOrThrow(yield* repo.getForUpdate(a.id, full.id))).toEqual(full)

        const transcribed: Call = {
          ...full,
          transcript: 'A: Dobrý den.\nB: "Hello" — 你好',
          summary: "Greetings exchanged.",
          updated_at: at(9)
        }
        yield* repo.update(a.id, transcribed)
        yield* repo.update(b.id, { ...transcribed, summary: "Hijacked" })
        expect(Option.getOrThrow(yield* repo.get(a.id, full.id))).toEqual(transcribed)
        expect(Option.isNone(yield* repo.get(b.id, full.id))).toBe(true)

        const list = (filter: Calls.CallFilter) => Effect.map(repo.list(a.id, filter, page(50)), ids)
        expect(yield* list({})).toEqual(ids([busy, missed, full]))
        expect(yield* list({ contactId: ann })).toEqual(ids([missed, full]))
        expect(yield* list({ direction: "outbound" })).toEqual(ids([busy, full]))
        expect(yield* list({ status: "missed" })).toEqual([missed.id])
        expect(yield* list({ contactId: ann, direction: "inbound", status: "missed" })).toEqual([missed.id])
        expect(yield* list({ contactId: ann, status: "busy" })).toEqual([])
      })
    )

    concurrent(
      "order and pages as every list; getForUpdate holds the call until the unit commits",
      Effect.gen(function* () {
        const { a } = yield* seed
        const repo = yield* Calls.CallRepository
        yield* expectNewestFirstPages(
          (created_at) => call({ created_at }),
          (row) => repo.insert(a.id, row),
          (limit, offset) => repo.list(a.id, {}, page(limit, offset))
        )
        const row = call({ created_at: at(10) })
        yield* repo.insert(a.id, row)
        const transcribed: Call = { ...row, transcript: "hi", summary: null, updated_at: at(11) }
        yield* expectHeldUntilCommit(repo.getForUpdate(a.id, row.id), repo.update(a.id, transcribed), row, transcribed)
      })
    )
  })
}
