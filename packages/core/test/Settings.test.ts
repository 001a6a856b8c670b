import { Settings } from "@crm/core"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"

const complete = (input: unknown) => Effect.runSync(Settings.complete("Org", Settings.SettingsInput.parse(input)))

describe("Settings", () => {
  it("fills defaults and gives a new organisation a default pipeline: open stages, then won, then lost", () => {
    const settings = complete({})
    expect(settings).toMatchObject({ name: "Org", timezone: "UTC", default_currency: "EUR", payment_terms_days: 14 })
    expect(settings.plan).toEqual({ read_only: false, max_contacts: null, max_companies: null })
    const kinds = settings.pipelines[0]!.stages.map((stage) => stage.kind)
    const firstClosed = kinds.findIndex((kind) => kind !== "open")
    expect(firstClosed).toBeGreaterThan(0)
    expect(kinds.slice(firstClosed)).toEqual(["won", "lost"])
  })

  it("keeps ids sent back and gives every new pipeline and stage a distinct uuid", () => {
    const pipelineId = crypto.randomUUID()
    const stageId = crypto.randomUUID()
    const settings = complete({
      pipelines: [
        {
          id: pipelineId,
          name: "A",
          stages: [
            { id: stageId, name: "s", kind: "open" },
            { name: "t", kind: "won" }
          ]
        },
        { name: "B", stages: [{ name: "u", kind: "open" }] }
      ]
    })
    expect(settings.pipelines[0]!.id).toBe(pipelineId)
    expect(settings.pipelines[0]!.stages[0]!.id).toBe(stageId)
    const ids = settings.pipelines.flatMap((p) => [p.id, ...p.stages.map((s) => s.id)])
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("accepts deal fields and custom.<key> as stage requirements, and keeps playbooks with defaults", () => {
    const settings = complete({
      pipelines: [
        {
          name: "p",
          stages: [
            {
              name: "s",
              kind: "open",
              required_fields: ["value", "expected_close_date", "contact_id", "company_id", "custom.segment"],
              playbook: [{ title: "Call" }, { title: "Send offer", due_in_days: 2, priority: "high" }]
            }
          ]
        }
      ]
    })
    expect(settings.pipelines[0]!.stages[0]!.playbook).toEqual([
      { title: "Call", due_in_days: null, priority: "normal" },
      { title: "Send offer", due_in_days: 2, priority: "high" }
    ])
  })

  it("refuses unknown zones, currencies and fields", () => {
    for (const input of [
      { timezone: "Mars/Base" },
      { default_currency: "euro" },
      { colour: "red" },
      { pipelines: [{ name: "x", stages: [] }] },
      { pipelines: [{ name: "no open stage", stages: [{ name: "w", kind: "won" }] }] },
      { pipelines: [{ name: "x", stages: [{ name: "s", kind: "open", required_fields: ["colour"] }] }] },
      { pipelines: [{ name: "x", stages: [{ name: "s", kind: "open", playbook: [{ title: "" }] }] }] },
      (() => {
        const id = crypto.randomUUID()
        return {
          pipelines: [
            {
              name: "x",
              stages: [
                { id, name: "s", kind: "open" },
                { id, name: "t", kind: "won" }
              ]
            }
          ]
        }
      })()
    ]) {
      expect(Settings.SettingsInput.safeParse(input).success, JSON.stringify(input)).toBe(false)
    }
  })
})
