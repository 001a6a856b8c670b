import { Activity, Deals, Ids, Settings } from "@crm/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const { TimelineItems } = Activity
const KINDS = ["created", "note", "call", "task", "task_completed", "stage"] as const

const instant = fc.integer({ min: Date.parse("2020-01-01T00:00:00Z"), max: Date.parse("2030-01-01T00:00:00Z") })
const item = fc.record({
  at: fc.integer({ min: 0, max: 20 }).map((minute) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString()),
  kind: fc.constantFrom(...KINDS),
  title: fc.string(),
  detail: fc.option(fc.string(), { nil: null }),
  ref: fc.record({ type: fc.constant("note" as const), id: fc.uuid() })
})

describe("Activity timeline merge", () => {
  it("answers at most limit items, newest first, with has_more exactly when items were left out", () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 40 }), fc.integer({ min: 1, max: 50 }), (items, limit) => {
        const timeline = TimelineItems.merge(items, limit)
        expect(timeline.items).toHaveLength(Math.min(limit, items.length))
        expect(timeline.has_more).toBe(items.length > limit)
        for (let i = 1; i < timeline.items.length; i++) {
          expect(timeline.items[i - 1]!.at >= timeline.items[i]!.at).toBe(true)
        }
        // The same items in any order give the same timeline.
        expect(TimelineItems.merge([...items].reverse(), limit)).toEqual(timeline)
      })
    )
  })

  it("puts a task's completion before its creation and a stage before the record's creation at one instant", () => {
    const at = "2026-01-01T00:00:00.000Z"
    const ref = { type: "task" as const, id: crypto.randomUUID() }
    const timeline = TimelineItems.merge(
      [
        { at, kind: "created", title: "c", detail: null, ref },
        { at, kind: "task", title: "t", detail: null, ref },
        { at, kind: "task_completed", title: "d", detail: null, ref },
        { at, kind: "stage", title: "s", detail: null, ref }
      ],
      10
    )
    expect(timeline.items.map((entry) => entry.kind)).toEqual(["task_completed", "task", "stage", "created"])
  })
})

describe("closing notice", () => {
  const settings = Settings.Settings.parse({
    name: "Org",
    timezone: "UTC",
    default_currency: "EUR",
    payment_terms_days: 14,
    plan: { read_only: false, max_contacts: null, max_companies: null },
    pipelines: [],
    stock: { low_stock_threshold: 5 },
    users: [{ id: "7e0e1d6c-3f4b-4f43-9d43-0c3c4b8d2a11", name: "Alice", email: "alice@example.com" }]
  })
  const alice = settings.users[0]!
  const stage = (kind: "open" | "won" | "lost") => ({
    id: Ids.brand(Deals.StageId, crypto.randomUUID()),
    name: kind.toUpperCase(),
    kind,
    required_fields: [],
    playbook: []
  })
  const deal = fc.record({
    title: fc.string({ minLength: 1, maxLength: 50 }),
    value: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null }),
    owner_id: fc.constantFrom<string | null>(
      null,
      alice.id,
      alice.id.toUpperCase(),
      "00000000-0000-4000-8000-000000000000"
    ),
    lost_reason: fc.option(fc.string({ maxLength: 50 }), { nil: null }),
    created_at: instant.map((ms) => new Date(ms).toISOString())
  })

  it("mails only a closed deal's known owner, saying won or lost in the subject", () => {
    fc.assert(
      fc.property(deal, fc.constantFrom("open" as const, "won" as const, "lost" as const), (fields, kind) => {
        const record = { ...fields, currency: "EUR" } as unknown as Deals.Deal
        const notice = Deals.closingNotice(settings, record, stage(kind))
        const known = fields.owner_id !== null && fields.owner_id.toLowerCase() === alice.id
        if (kind === "open" || !known) {
          expect(notice).toBeNull()
          return
        }
        expect(notice).not.toBeNull()
        expect(notice!.to).toBe("alice@example.com")
        expect(notice!.subject).toBe(`Deal ${kind}: ${fields.title}`)
        expect(notice!.body).toContain(`Stage: ${kind.toUpperCase()}`)
        expect(notice!.body).toContain(fields.value === null ? "Value: not set" : `Value: ${fields.value} EUR`)
        expect(notice!.body.includes("Lost reason:")).toBe(kind === "lost")
      })
    )
  })
})
