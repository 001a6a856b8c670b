import { Contacts, Deals, Ids, Money, Settings, Tasks } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { DealStage } = Deals
const AT = "2026-11-23T10:00:00.000Z"

const kind = fc.constantFrom("open" as const, "won" as const, "lost" as const)
const requirement = fc.subarray(["value", "expected_close_date", "contact_id", "custom.segment"])

const stageInput = fc.record({ name: fc.constant("s"), kind, required_fields: requirement })
const pipelineInput = fc
  .array(stageInput, { minLength: 1, maxLength: 5 })
  .filter((stages) => stages.some((s) => s.kind === "open"))
  .map((stages) => ({ name: "p", stages }))

const settingsOf = (pipelines: unknown): Settings.Settings =>
  Effect.runSync(Settings.complete("o", Settings.SettingsInput.parse({ pipelines })))

const settingsArb = fc.array(pipelineInput, { minLength: 1, maxLength: 3 }).map(settingsOf)

const dealIn = (pipeline: Deals.Pipeline, stage: Deals.Stage, filled: boolean): Deals.Deal => ({
  id: Ids.brand(Deals.DealId, crypto.randomUUID()),
  title: "d",
  value: filled ? Money.ofNumber(10) : null,
  currency: "EUR",
  pipeline_id: pipeline.id,
  status_id: stage.id,
  status_kind: stage.kind,
  contact_id: filled ? Ids.brand(Contacts.ContactId, crypto.randomUUID()) : null,
  company_id: null,
  owner_id: null,
  expected_close_date: filled ? "2026-12-31" : null,
  lost_reason: null,
  closed_at: stage.kind === "open" ? null : AT,
  custom: filled ? { segment: "smb" } : {},
  created_at: AT,
  updated_at: AT
})

describe("DealStage", () => {
  it("places a new deal in the first pipeline's first open stage unless told otherwise", () => {
    fc.assert(
      fc.property(settingsArb, (settings) => {
        const placed = Either.getOrThrow(DealStage.place(settings, {}))
        expect(placed.pipeline.id).toBe(settings.pipelines[0]!.id)
        expect(placed.stage).toEqual(settings.pipelines[0]!.stages.find((s) => s.kind === "open"))
      })
    )
  })

  it("refuses a placement in a stage of another pipeline", () => {
    fc.assert(
      fc.property(settingsArb, fc.nat(), (settings, pick) => {
        const all = settings.pipelines.flatMap((p) => p.stages.map((s) => ({ p, s })))
        const { p, s } = all[pick % all.length]!
        const outcome = DealStage.place(settings, { status_id: s.id })
        expect(Either.isRight(outcome)).toBe(p.id === settings.pipelines[0]!.id)
      })
    )
  })

  it("moves only within the deal's pipeline, only with the required fields, and closes exactly on won/lost", () => {
    fc.assert(
      fc.property(settingsArb, fc.nat(), fc.nat(), fc.boolean(), (settings, from, to, filled) => {
        const all = settings.pipelines.flatMap((p) => p.stages.map((s) => ({ p, s })))
        const start = all[from % all.length]!
        const target = all[to % all.length]!
        const deal = dealIn(start.p, start.s, filled)
        const outcome = DealStage.move(settings, deal, { status_id: target.s.id }, AT)
        const allowed =
          target.p.id === start.p.id && (filled || target.s.required_fields.length === 0 || target.s.id === start.s.id)
        expect(Either.isRight(outcome)).toBe(allowed)
        if (Either.isLeft(outcome)) {
          if (target.p.id === start.p.id) {
            expect(outcome.left.detail.map((issue) => issue.path).sort()).toEqual([...target.s.required_fields].sort())
          }
          return
        }
        const move = outcome.right
        if (target.s.id === start.s.id) {
          expect(move._tag).toBe("Unchanged")
          return
        }
        if (move._tag !== "Moved") throw new Error("expected a move")
        expect(move.deal.pipeline_id).toBe(start.p.id)
        expect(move.deal.status_id).toBe(target.s.id)
        expect(move.deal.status_kind).toBe(target.s.kind)
        expect(move.deal.closed_at === null).toBe(target.s.kind === "open")
        expect(move.from).toEqual(start.s)
      })
    )
  })

  it("keeps lost_reason unless the move names one", () => {
    const settings = settingsOf([
      {
        name: "p",
        stages: [
          { name: "a", kind: "open" },
          { name: "l", kind: "lost" }
        ]
      }
    ])
    const [open, lost] = settings.pipelines[0]!.stages
    const deal = { ...dealIn(settings.pipelines[0]!, open!, false), lost_reason: "old" }
    const kept = Either.getOrThrow(DealStage.move(settings, deal, { status_id: lost!.id }, AT))
    const named = Either.getOrThrow(DealStage.move(settings, deal, { status_id: lost!.id, lost_reason: "price" }, AT))
    expect(kept._tag === "Moved" && kept.deal.lost_reason).toBe("old")
    expect(named._tag === "Moved" && named.deal.lost_reason).toBe("price")
  })
})

describe("TaskState", () => {
  const task: Tasks.Task = {
    id: Ids.brand(Tasks.TaskId, crypto.randomUUID()),
    title: "t",
    type: "todo",
    priority: "normal",
    due_at: null,
    done: false,
    completed_at: null,
    assignee_id: null,
    entity_type: null,
    entity_id: null,
    description: null,
    created_at: AT,
    updated_at: AT
  }

  it("completes once: a second completion keeps the first time and reports no transition", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<boolean | undefined>(true, false, undefined), { maxLength: 20 }),
        (steps) => {
          let current = task
          let completions = 0
          let wasDone = false
          steps.forEach((done, i) => {
            const at = new Date(Date.parse(AT) + i * 1000).toISOString()
            const outcome = Tasks.TaskState.setDone(current, done, at)
            if (outcome.completed) completions++
            expect(outcome.completed).toBe(done === true && !current.done)
            if (done === true && current.done) expect(outcome.task.completed_at).toBe(current.completed_at)
            expect(outcome.task.done === (outcome.task.completed_at !== null)).toBe(true)
            if (done === false) wasDone = false
            if (outcome.completed) wasDone = true
            current = outcome.task
          })
          expect(current.done).toBe(wasDone)
          expect(completions).toBeLessThanOrEqual(steps.filter((d) => d === true).length)
        }
      )
    )
  })
})
