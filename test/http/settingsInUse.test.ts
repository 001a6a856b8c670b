/**
 * `PUT /admin/v1/organisations/{id}/settings` refuses to remove what records still use: a stage
 * live deals stand in, a stored record field live records hold values of. 409 `in_use` names each
 * with how many use it, and the settings stay as they were; once nothing uses it, it may go.
 */
import { expect, it } from "vitest"
import type { Client, TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const RECORD_TYPES = [
  {
    key: "timesheet",
    name: "Timesheet",
    fields: [
      { key: "hours", type: "number" },
      { key: "note", type: "text" },
      { key: "double", type: "formula", expression: "hours * 2" }
    ]
  }
]

const tenant = async (server: () => TestServer) => {
  const made = await server().tenant({ settings: { record_types: RECORD_TYPES } })
  const put = (settings: unknown) => server().admin.put(`/organisations/${made.organisation.id}/settings`, settings)
  const current = async () => (await server().admin.get(`/organisations/${made.organisation.id}`)).body.settings
  return { ...made, put, current }
}

const newDeal = async (client: Client, statusId: string) => {
  const deal = await client.post("/deals", { title: "Deal", status_id: statusId })
  expect(deal.status, deal.text).toBe(201)
  return deal.body
}

onEveryStore("settings in use", (server) => {
  it("refuses to remove a stage live deals stand in, naming it and how many; once they move on it may go", async () => {
    const { client, put, current } = await tenant(server)
    const settings = await current()
    const [sales] = settings.pipelines
    const [qualified, proposal, negotiation] = sales.stages
    const waiting = [await newDeal(client, proposal.id), await newDeal(client, proposal.id)]
    const gone = await newDeal(client, negotiation.id)
    expect((await client.delete(`/deals/${gone.id}`)).status).toBe(204)
    const without = (...ids: ReadonlyArray<string>) => ({
      ...settings,
      pipelines: [{ ...sales, stages: sales.stages.filter((stage: any) => !ids.includes(stage.id)) }]
    })

    const refused = await put(without(proposal.id, negotiation.id))
    expect(refused.status, refused.text).toBe(409)
    expect(refused.body.error).toBe("in_use")
    expect(refused.body.detail).toMatchObject({
      stages: [{ pipeline_id: sales.id, pipeline: "Sales", stage_id: proposal.id, stage: "Proposal", deals: 2 }],
      record_fields: []
    })
    expect(refused.body.detail.message).toContain("stage 'Proposal' of pipeline 'Sales' (2 deals in it)")
    expect(await current()).toEqual(settings)

    // The whole pipeline, or the stage moved into another pipeline, takes it from its deals too.
    const replaced = await put({ ...settings, pipelines: [{ name: "Other", stages: sales.stages }] })
    expect(replaced.status).toBe(409)
    expect(replaced.body.detail.stages.map((stage: any) => [stage.stage_id, stage.deals])).toEqual([[proposal.id, 2]])
    const moved = await put({
      ...settings,
      pipelines: [
        { ...sales, stages: sales.stages.filter((stage: any) => stage.id !== proposal.id) },
        { name: "Renewals", stages: [proposal] }
      ]
    })
    expect(moved.status).toBe(409)
    expect(moved.body.detail.stages.map((stage: any) => stage.stage_id)).toEqual([proposal.id])
    expect(await current()).toEqual(settings)

    // An archived deal stands nowhere: its stage goes.
    const pruned = await put(without(negotiation.id))
    expect(pruned.status, pruned.text).toBe(200)
    for (const deal of waiting) {
      expect((await client.post(`/deals/${deal.id}/status`, { status_id: qualified.id })).status).toBe(200)
    }
    const freed = await put(without(negotiation.id, proposal.id))
    expect(freed.status, freed.text).toBe(200)
    expect(freed.body.settings.pipelines[0].stages.map((stage: any) => stage.name)).toEqual([
      "Qualified",
      "Won",
      "Lost"
    ])
  })

  it("refuses to remove a record field records hold values of, with its type or made computed; cleared, it may go", async () => {
    const { client, put, current } = await tenant(server)
    const settings = await current()
    const [sheet] = settings.record_types
    const [hours, note, double] = sheet.fields
    const first = await client.post("/records", { type: "timesheet", custom: { hours: 2, note: "late" } })
    await client.post("/records", { type: "timesheet", custom: { hours: 1 } })
    await client.post("/records", { type: "timesheet", title: "empty" })
    const withFields = (...fields: ReadonlyArray<unknown>) => ({ ...settings, record_types: [{ ...sheet, fields }] })

    const noNote = await put(withFields(hours, double))
    expect(noNote.status, noNote.text).toBe(409)
    expect(noNote.body).toMatchObject({
      error: "in_use",
      detail: {
        stages: [],
        record_fields: [{ type_id: sheet.id, type_key: "timesheet", field: "note", records: 1 }]
      }
    })
    expect(noNote.body.detail.message).toContain("record field timesheet.note (1 record with a value)")

    // A stored field turned into a formula would hide its values: the same refusal.
    const computed = await put(withFields({ key: "hours", type: "formula", expression: "1" }, note))
    expect(computed.status).toBe(409)
    expect(computed.body.detail.record_fields).toEqual([
      { type_id: sheet.id, type_key: "timesheet", field: "hours", records: 2 }
    ])
    const typeGone = await put({ ...settings, record_types: [] })
    expect(typeGone.status).toBe(409)
    expect(typeGone.body.detail.record_fields.map((field: any) => [field.field, field.records])).toEqual([
      ["hours", 2],
      ["note", 1]
    ])
    expect(await current()).toEqual(settings)

    // A computed field stores nothing; a field renamed with its type keeps its values.
    expect((await put(withFields(hours, note))).status).toBe(200)
    const renamed = await put({ ...settings, record_types: [{ ...sheet, key: "sheet", fields: [hours, note] }] })
    expect(renamed.status, renamed.text).toBe(200)

    expect((await client.patch(`/records/${first.body.id}`, { custom: { note: null } })).status).toBe(200)
    const cleared = await put({ ...settings, record_types: [{ ...sheet, key: "sheet", fields: [hours] }] })
    expect(cleared.status, cleared.text).toBe(200)
    expect(cleared.body.settings.record_types[0].fields.map((field: any) => field.key)).toEqual(["hours"])
  })

  it("names every use at once, and documents in_use on the operation", async () => {
    const { client, put, current } = await tenant(server)
    const settings = await current()
    const [sales] = settings.pipelines
    await newDeal(client, sales.stages[1].id)
    await client.post("/records", { type: "timesheet", custom: { note: "x" } })
    const both = await put({
      ...settings,
      pipelines: [{ ...sales, stages: sales.stages.filter((_: unknown, n: number) => n !== 1) }],
      record_types: []
    })
    expect(both.status).toBe(409)
    expect(both.body.detail.stages.map((stage: any) => stage.stage)).toEqual(["Proposal"])
    expect(both.body.detail.record_fields.map((field: any) => field.field)).toEqual(["note"])

    const document = (await server().anonymous.get("/openapi.json")).body
    const operation = document.paths["/admin/v1/organisations/{id}/settings"].put
    expect(operation.responses["409"].content["application/json"].schema.properties.error.enum).toEqual(["in_use"])
  })
})
