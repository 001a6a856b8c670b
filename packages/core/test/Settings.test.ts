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

  it("keeps the seller's details, empty by default and in documents stored before they existed", () => {
    expect(complete({}).seller).toEqual(Settings.NO_SELLER)
    const seller = complete({ seller: { legal_name: " Dílna s.r.o. ", vat_number: "CZ27074358", phone: " " } }).seller
    expect(seller).toEqual({ ...Settings.NO_SELLER, legal_name: "Dílna s.r.o.", vat_number: "CZ27074358" })
    const { seller: _seller, ...older } = complete({ seller: { vat_number: "CZ1" } })
    expect(Settings.Settings.parse(older).seller).toEqual(Settings.NO_SELLER)
    expect(Settings.SettingsInput.safeParse({ seller: { iban: "x" } }).success).toBe(false)
    expect(Settings.SettingsInput.safeParse({ seller: { bic: "TOO-LONG-A-BIC" } }).success).toBe(false)
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

describe("Settings: record types", () => {
  const PROJECT = {
    key: "project",
    name: "Project",
    fields: [
      { key: "price", type: "number" },
      { key: "quantity", type: "number", required: true },
      { key: "stage", type: "select", options: ["idea", "live"] },
      { key: "tags", type: "multiselect", options: ["a", "b"] },
      { key: "amount", type: "formula", expression: "price * quantity" },
      { key: "client", type: "relation", target: "contact" },
      { key: "sheets", type: "relation", target: "timesheet" },
      { key: "hours", type: "rollup", rollup: { relation: "sheets", field: "hours", aggregate: "sum" } },
      { key: "sheet_count", type: "rollup", rollup: { relation: "sheets", aggregate: "count" } }
    ]
  }
  const TIMESHEET = { key: "timesheet", name: "Timesheet", fields: [{ key: "hours", type: "number" }] }

  const withField = (field: Record<string, unknown>) => ({
    record_types: [{ ...PROJECT, fields: [...PROJECT.fields, field] }, TIMESHEET]
  })

  it("gives each record type a uuid, keeps ids sent back, and stores what it validated", () => {
    const kept = crypto.randomUUID()
    const settings = complete({ record_types: [{ ...PROJECT, id: kept }, TIMESHEET] })
    expect(settings.record_types.map((type) => type.id)[0]).toBe(kept)
    expect(settings.record_types[1]!.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(settings.record_types[0]!.fields[0]).toEqual({ key: "price", type: "number", required: false })
    expect(Settings.Settings.parse(JSON.parse(JSON.stringify(settings)))).toEqual(settings)
  })

  it("refuses duplicate keys, options missing, bad formulas, relations and rollups that point nowhere", () => {
    for (const input of [
      { record_types: [PROJECT, TIMESHEET, { ...TIMESHEET, name: "again" }] },
      withField({ key: "price", type: "text" }),
      withField({ key: "Bad Key", type: "text" }),
      withField({ key: "colour", type: "select" }),
      withField({ key: "colour", type: "select", options: [] }),
      withField({ key: "colour", type: "multiselect", options: ["a", "a"] }),
      withField({ key: "calc", type: "formula" }),
      withField({ key: "calc", type: "formula", expression: "price *" }),
      withField({ key: "calc", type: "formula", expression: "price * stage" }),
      withField({ key: "calc", type: "formula", expression: "price * missing" }),
      withField({ key: "calc", type: "formula", expression: "amount * 2" }),
      withField({ key: "calc", type: "formula", expression: "1", required: true }),
      withField({ key: "link", type: "relation" }),
      withField({ key: "link", type: "relation", target: "ticket" }),
      withField({ key: "sum", type: "rollup" }),
      withField({ key: "sum", type: "rollup", rollup: { relation: "client", field: "hours", aggregate: "sum" } }),
      withField({ key: "sum", type: "rollup", rollup: { relation: "price", aggregate: "count" } }),
      withField({ key: "sum", type: "rollup", rollup: { relation: "sheets", aggregate: "sum" } }),
      withField({ key: "sum", type: "rollup", rollup: { relation: "sheets", field: "minutes", aggregate: "max" } }),
      withField({ key: "sum", type: "rollup", rollup: { relation: "sheets", field: "hours", aggregate: "median" } }),
      withField({ key: "odd", type: "colour" }),
      (() => {
        const id = crypto.randomUUID()
        return {
          record_types: [
            { ...PROJECT, id },
            { ...TIMESHEET, id }
          ]
        }
      })()
    ]) {
      expect(Settings.SettingsInput.safeParse(input).success, JSON.stringify(input)).toBe(false)
    }
  })
})

describe("Settings: forms", () => {
  const CONTACT_US = {
    name: "Contact us",
    fields: [
      { key: "email", type: "email", required: true, maps_to: "email" },
      { key: "name", type: "text", maps_to: "first_name" },
      { key: "size", type: "select", options: ["s", "l"], maps_to: "custom.size" },
      { key: "consent", type: "checkbox", required: true }
    ]
  }

  it("gives each form a uuid, keeps ids sent back, and defaults lead_source to false", () => {
    const kept = crypto.randomUUID()
    const settings = complete({ forms: [CONTACT_US, { ...CONTACT_US, id: kept, lead_source: "facebook" }] })
    expect(settings.forms[0]!.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(settings.forms[0]!.lead_source).toBe(false)
    expect(settings.forms[1]).toMatchObject({ id: kept, lead_source: "facebook" })
    expect(Settings.Settings.parse(JSON.parse(JSON.stringify(settings)))).toEqual(settings)
    expect(complete({}).forms).toEqual([])
  })

  it("refuses forms that could not make a contact or whose fields contradict each other", () => {
    const withFields = (fields: ReadonlyArray<Record<string, unknown>>) => ({ forms: [{ ...CONTACT_US, fields }] })
    for (const input of [
      withFields([]),
      withFields([{ key: "note", type: "text" }]),
      withFields([...CONTACT_US.fields, { key: "email", type: "text" }]),
      withFields([...CONTACT_US.fields, { key: "again", type: "email", maps_to: "email" }]),
      withFields([...CONTACT_US.fields, { key: "pick", type: "select" }]),
      withFields([...CONTACT_US.fields, { key: "note", type: "text", options: ["a"] }]),
      withFields([...CONTACT_US.fields, { key: "mail", type: "text", maps_to: "email" }]),
      withFields([...CONTACT_US.fields, { key: "where", type: "text", maps_to: "address" }]),
      withFields([...CONTACT_US.fields, { key: "odd", type: "file" }]),
      { forms: [{ ...CONTACT_US, lead_source: "" }] },
      { forms: [{ ...CONTACT_US, name: "" }] },
      (() => {
        const id = crypto.randomUUID()
        return {
          forms: [
            { ...CONTACT_US, id },
            { ...CONTACT_US, id }
          ]
        }
      })()
    ]) {
      expect(Settings.SettingsInput.safeParse(input).success, JSON.stringify(input)).toBe(false)
    }
  })
})
