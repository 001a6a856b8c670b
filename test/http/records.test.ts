import { expect, it } from "vitest"
import { newestFirst } from "../support/answers.js"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const RECORD_FIELDS = [
  "company_id",
  "contact_id",
  "created_at",
  "custom",
  "deal_id",
  "id",
  "owner_id",
  "title",
  "type_id",
  "type_key",
  "updated_at"
]

const SETTINGS = {
  record_types: [
    {
      key: "project",
      name: "Project",
      fields: [
        { key: "budget", type: "number" },
        { key: "stage", type: "select", options: ["idea", "live"], required: true },
        { key: "tags", type: "multiselect", options: ["red", "green", "blue"] },
        { key: "starts", type: "date" },
        { key: "billable", type: "boolean" },
        { key: "note", type: "text" },
        { key: "timesheets", type: "relation", target: "timesheet" },
        { key: "client", type: "relation", target: "contact" },
        { key: "hours", type: "rollup", rollup: { relation: "timesheets", field: "hours", aggregate: "sum" } },
        { key: "sheets", type: "rollup", rollup: { relation: "timesheets", aggregate: "count" } },
        { key: "longest", type: "rollup", rollup: { relation: "timesheets", field: "hours", aggregate: "max" } }
      ]
    },
    {
      key: "timesheet",
      name: "Timesheet",
      fields: [
        { key: "hours", type: "number" },
        { key: "rate", type: "number" },
        { key: "amount", type: "formula", expression: "hours * rate" }
      ]
    }
  ]
}

const COMPUTED_EMPTY = { hours: 0, sheets: 0, longest: null }

const events = async (client: Client, name: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0&event=${name}`)
  expect(page.status).toBe(200)
  return page.body.data
}

const paths = (response: { body: any }): Array<string> => response.body.detail.map((issue: any) => issue.path).sort()

const tenant = (server: () => any) => server().tenant({ settings: SETTINGS })

onEveryStore("records", (server) => {
  it("creates a record, drops and lists undefined custom keys, and reads it back without ignored_fields", async () => {
    const { client, organisation } = await tenant(server)
    const projectType = organisation.settings.record_types.find((type: any) => type.key === "project")
    expect(projectType.id).toMatch(/^[0-9a-f-]{36}$/)
    const owner = crypto.randomUUID()
    const created = await client.post("/records", {
      type: "project",
      title: "Analytical engine",
      owner_id: owner,
      custom: {
        budget: 1200.5,
        stage: "idea",
        tags: ["red", "blue"],
        starts: "2026-12-01",
        billable: true,
        note: "first",
        colour: "teal",
        size: 3
      }
    })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual([...RECORD_FIELDS, "ignored_fields"].sort())
    expect(created.body).toMatchObject({
      type_id: projectType.id,
      type_key: "project",
      title: "Analytical engine",
      owner_id: owner,
      contact_id: null,
      company_id: null,
      deal_id: null,
      ignored_fields: ["colour", "size"]
    })
    expect(created.body.custom).toEqual({
      budget: 1200.5,
      stage: "idea",
      tags: ["red", "blue"],
      starts: "2026-12-01",
      billable: true,
      note: "first",
      ...COMPUTED_EMPTY
    })
    expect(created.body.created_at).toMatch(ISO_MS)

    const read = await client.get(`/records/${created.body.id}`)
    expect(read.status).toBe(200)
    const { ignored_fields: _ignored, ...rest } = created.body
    expect(read.body).toEqual(rest)

    const bare = await client.post("/records", { type: "timesheet" })
    expect(bare.status).toBe(201)
    expect(bare.body).toMatchObject({ title: null, owner_id: null, custom: { amount: null }, ignored_fields: [] })
  })

  it("emits record.created and record.updated with exactly the catalogue's keys", async () => {
    const { client } = await tenant(server)
    const created = await client.post("/records", { type: "project", title: "A", custom: { stage: "idea" } })
    const patched = await client.patch(`/records/${created.body.id}`, { title: "B" })
    expect(patched.status).toBe(200)
    const pick = (r: any) => ({
      id: r.id,
      type_id: r.type_id,
      type_key: r.type_key,
      title: r.title,
      owner_id: r.owner_id
    })
    const [createdEvent] = await events(client, "record.created")
    expect(Object.keys(createdEvent.data).sort()).toEqual(["id", "owner_id", "title", "type_id", "type_key"])
    expect(createdEvent.data).toEqual(pick(created.body))
    const [updatedEvent] = await events(client, "record.updated")
    expect(Object.keys(updatedEvent.data).sort()).toEqual(["id", "owner_id", "title", "type_id", "type_key"])
    expect(updatedEvent.data).toEqual(pick(patched.body))
  })

  it("checks every value against its field: select and multiselect options, numbers, dates, booleans, text", async () => {
    const { client } = await tenant(server)
    const refused = await client.post("/records", {
      type: "project",
      custom: {
        stage: "done",
        tags: ["red", "pink"],
        budget: "12",
        starts: "2026-02-30",
        billable: "yes",
        note: 5
      }
    })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toBe("validation_failed")
    expect(paths(refused)).toEqual([
      "custom.billable",
      "custom.budget",
      "custom.note",
      "custom.stage",
      "custom.starts",
      "custom.tags"
    ])
    for (const custom of [{ stage: ["idea"] }, { stage: "idea", tags: "red" }, { stage: "idea", tags: [1] }]) {
      const one = await client.post("/records", { type: "project", custom })
      expect(one.status, JSON.stringify(custom)).toBe(422)
    }
    expect((await client.get("/records")).body.data).toEqual([])
    const duplicate = await client.post("/records", {
      type: "project",
      custom: { stage: "live", tags: ["red", "red"] }
    })
    expect(duplicate.body.custom.tags).toEqual(["red"])
  })

  it("computes formula and rollup fields, refuses them when sent, and follows the linked records", async () => {
    const { client } = await tenant(server)
    const sheet = await client.post("/records", { type: "timesheet", custom: { hours: 1.5, rate: 40 } })
    expect(sheet.body.custom).toEqual({ hours: 1.5, rate: 40, amount: 60 })
    const noRate = await client.post("/records", { type: "timesheet", custom: { hours: 4 } })
    expect(noRate.body.custom.amount).toBeNull()

    const sent = await client.post("/records", { type: "timesheet", custom: { hours: 1, amount: 5 } })
    expect(sent.status).toBe(422)
    expect(paths(sent)).toEqual(["custom.amount"])
    const rollupSent = await client.post("/records", { type: "project", custom: { stage: "idea", hours: 3 } })
    expect(rollupSent.status).toBe(422)
    expect(paths(rollupSent)).toEqual(["custom.hours"])

    const project = await client.post("/records", {
      type: "project",
      custom: { stage: "live", timesheets: [sheet.body.id, noRate.body.id] }
    })
    expect(project.status).toBe(201)
    expect(project.body.custom).toMatchObject({ hours: 5.5, sheets: 2, longest: 4 })

    await client.patch(`/records/${noRate.body.id}`, { custom: { hours: 10 } })
    expect((await client.get(`/records/${project.body.id}`)).body.custom).toMatchObject({ hours: 11.5, longest: 10 })
    const listed = await client.get("/records?type=project")
    expect(listed.body.data[0].custom).toMatchObject({ hours: 11.5, sheets: 2, longest: 10 })

    const patchSent = await client.patch(`/records/${sheet.body.id}`, { custom: { amount: 1 } })
    expect(patchSent.status).toBe(422)
    expect(paths(patchSent)).toEqual(["custom.amount"])
  })

  it("requires required fields on create and refuses clearing them", async () => {
    const { client } = await tenant(server)
    const missing = await client.post("/records", { type: "project", title: "x", custom: { budget: 1 } })
    expect(missing.status).toBe(422)
    expect(missing.body.error).toBe("validation_failed")
    expect(paths(missing)).toEqual(["custom.stage"])
    const nulled = await client.post("/records", { type: "project", custom: { stage: null } })
    expect(nulled.status).toBe(422)
    expect(paths(nulled)).toEqual(["custom.stage"])

    const record = await client.post("/records", { type: "project", custom: { stage: "idea", budget: 1 } })
    const cleared = await client.patch(`/records/${record.body.id}`, { custom: { stage: null } })
    expect(cleared.status).toBe(422)
    expect(paths(cleared)).toEqual(["custom.stage"])
    const optional = await client.patch(`/records/${record.body.id}`, { custom: { budget: null } })
    expect(optional.status).toBe(200)
    expect(optional.body.custom).toEqual({ stage: "idea", ...COMPUTED_EMPTY })
  })

  it("refuses an empty value for a required field, on create and on PATCH, naming the field", async () => {
    const { client } = await server().tenant({
      settings: {
        record_types: [
          {
            key: "visit",
            name: "Visit",
            fields: [
              { key: "summary", type: "text", required: true },
              { key: "topics", type: "multiselect", options: ["price", "delivery"], required: true },
              { key: "people", type: "relation", target: "contact", required: true },
              { key: "remark", type: "text" },
              { key: "labels", type: "multiselect", options: ["late"] }
            ]
          }
        ]
      }
    })
    const ann = (await client.post("/contacts", { first_name: "Ann" })).body.id
    const empty = await client.post("/records", { type: "visit", custom: { summary: "", topics: [], people: [] } })
    expect(empty.status).toBe(422)
    expect(empty.body.error).toBe("validation_failed")
    expect(empty.body.detail).toEqual(
      ["custom.summary", "custom.topics", "custom.people"].map((path) => ({
        path,
        message: "is required: an empty value does not count",
        code: "required"
      }))
    )
    const blank = await client.post("/records", {
      type: "visit",
      custom: { summary: "  \t", topics: ["price"], people: [ann] }
    })
    expect(blank.status).toBe(422)
    expect(paths(blank)).toEqual(["custom.summary"])

    // Optional fields may be empty.
    const custom = { summary: "Went well", topics: ["price"], people: [ann], remark: "", labels: [] }
    const record = await client.post("/records", { type: "visit", custom })
    expect(record.status).toBe(201)
    expect(record.body.custom).toEqual(custom)
    for (const [key, value] of [
      ["summary", ""],
      ["topics", []],
      ["people", []]
    ] as const) {
      const emptied = await client.patch(`/records/${record.body.id}`, { custom: { [key]: value } })
      expect(emptied.status).toBe(422)
      expect(paths(emptied)).toEqual([`custom.${key}`])
    }
    expect((await client.get(`/records/${record.body.id}`)).body.custom).toEqual(custom)
  })

  it("refuses an unknown type, links and relations outside the organisation, and relations of another type", async () => {
    const a = await tenant(server)
    const b = await tenant(server)
    const unknownType = await a.client.post("/records", { type: "invoice", custom: {} })
    expect(unknownType.status).toBe(422)
    expect(paths(unknownType)).toEqual(["type"])
    expect((await a.client.post("/records", { custom: {} })).status).toBe(422)

    const theirContact = await b.client.post("/contacts", { first_name: "Eve" })
    const theirCompany = await b.client.post("/companies", { name: "Elsewhere" })
    const theirDeal = await b.client.post("/deals", { title: "Theirs" })
    const theirSheet = await b.client.post("/records", { type: "timesheet", custom: { hours: 1 } })
    for (const [field, id] of [
      ["contact_id", theirContact.body.id],
      ["company_id", theirCompany.body.id],
      ["deal_id", theirDeal.body.id],
      ["contact_id", crypto.randomUUID()]
    ]) {
      const refused = await a.client.post("/records", { type: "timesheet", [field]: id })
      expect(refused.status, field).toBe(422)
      expect(paths(refused)).toEqual([field])
    }
    const foreignClient = await a.client.post("/records", {
      type: "project",
      custom: { stage: "idea", client: [theirContact.body.id] }
    })
    expect(foreignClient.status).toBe(422)
    expect(paths(foreignClient)).toEqual(["custom.client"])
    const foreignSheet = await a.client.post("/records", {
      type: "project",
      custom: { stage: "idea", timesheets: [theirSheet.body.id] }
    })
    expect(paths(foreignSheet)).toEqual(["custom.timesheets"])
    const ownProject = await a.client.post("/records", { type: "project", custom: { stage: "idea" } })
    const wrongType = await a.client.post("/records", {
      type: "project",
      custom: { stage: "idea", timesheets: [ownProject.body.id] }
    })
    expect(wrongType.status).toBe(422)
    expect(paths(wrongType)).toEqual(["custom.timesheets"])
    const notIds = await a.client.post("/records", { type: "project", custom: { stage: "idea", client: "someone" } })
    expect(paths(notIds)).toEqual(["custom.client"])
    expect((await a.client.get("/records")).body.data.map((r: any) => r.id)).toEqual([ownProject.body.id])

    const contact = await a.client.post("/contacts", { first_name: "Ada" })
    const company = await a.client.post("/companies", { name: "Acme" })
    const deal = await a.client.post("/deals", { title: "Ours" })
    const linked = await a.client.post("/records", {
      type: "project",
      contact_id: contact.body.id,
      company_id: company.body.id,
      deal_id: deal.body.id,
      custom: { stage: "idea", client: [contact.body.id] }
    })
    expect(linked.status).toBe(201)
    expect(linked.body).toMatchObject({
      contact_id: contact.body.id,
      company_id: company.body.id,
      deal_id: deal.body.id
    })
    const relinked = await a.client.patch(`/records/${linked.body.id}`, { deal_id: theirDeal.body.id })
    expect(relinked.status).toBe(422)
    expect(paths(relinked)).toEqual(["deal_id"])
    const unlinked = await a.client.patch(`/records/${linked.body.id}`, { deal_id: null, company_id: null })
    expect(unlinked.body).toMatchObject({ deal_id: null, company_id: null, contact_id: contact.body.id })
  })

  it("PATCH merges custom key by key, lists dropped keys, and refuses empty or unknown bodies", async () => {
    const { client } = await tenant(server)
    const record = await client.post("/records", {
      type: "project",
      title: "Keep",
      custom: { stage: "idea", budget: 10, note: "n" }
    })
    const patched = await client.patch(`/records/${record.body.id}`, {
      custom: { budget: 20, note: null, colour: "red" }
    })
    expect(patched.status).toBe(200)
    expect(patched.body.ignored_fields).toEqual(["colour"])
    expect(patched.body).toMatchObject({ title: "Keep", custom: { stage: "idea", budget: 20, ...COMPUTED_EMPTY } })
    expect(patched.body.custom).not.toHaveProperty("note")
    expect(patched.body.updated_at >= record.body.updated_at).toBe(true)
    expect((await client.get(`/records/${record.body.id}`)).body.custom).toEqual(patched.body.custom)

    const titled = await client.patch(`/records/${record.body.id}`, { title: null })
    expect(titled.body).toMatchObject({ title: null, ignored_fields: [], custom: patched.body.custom })

    for (const body of [{}, { type: "timesheet" }, { nickname: "y" }]) {
      const empty = await client.patch(`/records/${record.body.id}`, body)
      expect(empty.status, JSON.stringify(body)).toBe(422)
      expect(empty.body.error).toBe("no_fields_to_update")
    }
    const mixed = await client.patch(`/records/${record.body.id}`, { title: "x", type: "timesheet" })
    expect(mixed.status).toBe(422)
    expect(mixed.body.error).toBe("validation_failed")
    expect(paths(mixed)).toEqual(["type"])
    const badSelect = await client.patch(`/records/${record.body.id}`, { custom: { stage: "gone" } })
    expect(badSelect.status).toBe(422)
    expect(paths(badSelect)).toEqual(["custom.stage"])
    expect((await client.get(`/records/${record.body.id}`)).body.title).toBeNull()
  })

  it("filters by type, contact, company, deal and title fragment, newest first", async () => {
    const { client } = await tenant(server)
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const company = await client.post("/companies", { name: "Acme" })
    const deal = await client.post("/deals", { title: "Deal" })
    const one = await client.post("/records", { type: "timesheet", title: "Week 1%", contact_id: contact.body.id })
    const two = await client.post("/records", { type: "timesheet", title: "Week 2", company_id: company.body.id })
    const three = await client.post("/records", {
      type: "project",
      title: "Launch",
      deal_id: deal.body.id,
      custom: { stage: "idea" }
    })
    const ids = async (query: string) => {
      const page = await client.get(`/records${query}`)
      expect(page.status, query).toBe(200)
      return page.body.data.map((r: any) => r.id)
    }
    expect(await ids("")).toEqual(newestFirst(one.body, two.body, three.body))
    expect(await ids("?type=timesheet")).toEqual(newestFirst(one.body, two.body))
    expect(await ids("?type=project")).toEqual([three.body.id])
    expect(await ids(`?contact_id=${contact.body.id}`)).toEqual([one.body.id])
    expect(await ids(`?company_id=${company.body.id}`)).toEqual([two.body.id])
    expect(await ids(`?deal_id=${deal.body.id}`)).toEqual([three.body.id])
    expect(await ids("?q=WEEK")).toEqual(newestFirst(one.body, two.body))
    expect(await ids("?q=1%25")).toEqual([one.body.id])
    expect(await ids("?q=%25")).toEqual([one.body.id])
    expect(await ids("?type=timesheet&q=2")).toEqual([two.body.id])
    const page = await client.get("/records?limit=1&offset=1")
    expect(page.body).toMatchObject({ limit: 1, offset: 1, has_more: true })
    expect(page.body.data.map((r: any) => r.id)).toEqual([newestFirst(one.body, two.body, three.body)[1]])
    expect(page.body.data[0]).not.toHaveProperty("ignored_fields")
    for (const query of ["?type=invoice", "?contact_id=nope", "?limit=0"]) {
      const refused = await client.get(`/records${query}`)
      expect(refused.status, query).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
    }
  })

  it("follows a renamed type by its id, and keeps records of a removed type readable but not writable", async () => {
    const { client, organisation } = await tenant(server)
    const sheet = await client.post("/records", { type: "timesheet", custom: { hours: 2, rate: 3 } })
    const project = await client.post("/records", {
      type: "project",
      custom: { stage: "idea", timesheets: [sheet.body.id] }
    })
    const [projectType, timesheetType] = organisation.settings.record_types
    const renamed = await server().admin.put(`/organisations/${organisation.id}/settings`, {
      ...organisation.settings,
      record_types: [{ ...projectType, key: "initiative" }, timesheetType]
    })
    expect(renamed.status, renamed.text).toBe(200)
    expect((await client.get(`/records/${project.body.id}`)).body).toMatchObject({
      type_id: projectType.id,
      type_key: "initiative",
      custom: { stage: "idea", hours: 2, sheets: 1 }
    })
    expect((await client.get("/records?type=initiative")).body.data.map((r: any) => r.id)).toEqual([project.body.id])
    expect((await client.get("/records?type=project")).status).toBe(422)
    const patched = await client.patch(`/records/${project.body.id}`, { title: "Renamed" })
    expect(patched.body.type_key).toBe("initiative")

    // A type goes only once its records hold no values of its fields (settingsInUse.test.ts).
    const remove = () =>
      server().admin.put(`/organisations/${organisation.id}/settings`, {
        ...organisation.settings,
        record_types: [timesheetType]
      })
    const inUse = await remove()
    expect(inUse.status, inUse.text).toBe(409)
    expect(inUse.body.detail.record_fields.map((field: any) => field.field).sort()).toEqual(["stage", "timesheets"])
    const optional = await server().admin.put(`/organisations/${organisation.id}/settings`, {
      ...organisation.settings,
      record_types: [
        {
          ...projectType,
          key: "initiative",
          fields: projectType.fields.map((field: any) =>
            field.key === "stage" ? { ...field, required: false } : field
          )
        },
        timesheetType
      ]
    })
    expect(optional.status, optional.text).toBe(200)
    const emptied = await client.patch(`/records/${project.body.id}`, { custom: { stage: null, timesheets: null } })
    expect(emptied.status, emptied.text).toBe(200)
    const removed = await remove()
    expect(removed.status, removed.text).toBe(200)
    const orphan = await client.get(`/records/${project.body.id}`)
    expect(orphan.status).toBe(200)
    expect(orphan.body).toMatchObject({ type_key: "initiative", title: "Renamed", custom: {} })
    expect(orphan.body.custom).not.toHaveProperty("hours")
    const refused = await client.patch(`/records/${project.body.id}`, { title: "x" })
    expect(refused.status).toBe(422)
    expect(paths(refused)).toEqual(["type"])
  })

  it("answers 404 for another organisation's record, an unknown id and a malformed id", async () => {
    const a = await tenant(server)
    const b = await tenant(server)
    const record = await a.client.post("/records", { type: "timesheet", title: "Mine" })
    for (const response of [
      await b.client.get(`/records/${record.body.id}`),
      await b.client.patch(`/records/${record.body.id}`, { title: "Theirs" }),
      await a.client.get(`/records/${crypto.randomUUID()}`),
      await a.client.get("/records/not-a-uuid")
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.error).toBe("not_found")
    }
    expect((await b.client.get("/records")).body.data).toEqual([])
    expect((await a.client.get(`/records/${record.body.id}`)).body.title).toBe("Mine")
  })

  it("refuses text no store can keep (a NUL character, an unpaired surrogate) with 422, writing nothing", async () => {
    const { client } = await tenant(server)
    const record = await client.post("/records", { type: "timesheet", title: "Kept" })
    for (const [body, path] of [
      [{ type: "timesheet", title: "a\u0000b" }, "title"],
      [{ type: "project", custom: { stage: "idea", note: "x\u0000y" } }, "custom.note"],
      [{ type: "project", custom: { stage: "idea", note: "x\ud800y" } }, "custom.note"],
      [{ type: "project", custom: { stage: "idea", tags: ["red", "\udc00"] } }, "custom.tags.1"]
    ] as const) {
      const refused = await client.post("/records", body)
      expect(refused.status, JSON.stringify(body)).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
      expect(paths(refused)).toEqual([path])
    }
    const patched = await client.patch(`/records/${record.body.id}`, { title: "\u0000" })
    expect(patched.status).toBe(422)
    expect(paths(patched)).toEqual(["title"])
    const query = await client.get("/records?q=%00")
    expect(query.status).toBe(422)
    expect(paths(query)).toEqual(["q"])
    expect((await client.get("/records")).body.data.map((r: any) => r.title)).toEqual(["Kept"])
    expect(await events(client, "record.updated")).toEqual([])
  })

  it("reads fields named like Object.prototype members as plain fields", async () => {
    const { client } = await server().tenant({
      settings: {
        record_types: [
          {
            key: "odd",
            name: "Odd",
            fields: [
              { key: "constructor", type: "text", required: true },
              { key: "tostring", type: "number" }
            ]
          }
        ]
      }
    })
    const missing = await client.post("/records", { type: "odd", custom: {} })
    expect(missing.status).toBe(422)
    expect(paths(missing)).toEqual(["custom.constructor"])
    const created = await client.post("/records", { type: "odd", custom: { constructor: "x" } })
    expect(created.status).toBe(201)
    expect(created.body.custom).toEqual({ constructor: "x" })
  })

  it("keeps reading records whose relation field held other values before the settings made it a relation", async () => {
    const { client, organisation } = await server().tenant({
      settings: {
        record_types: [
          {
            key: "thing",
            name: "Thing",
            fields: [
              { key: "n", type: "number" },
              { key: "links", type: "multiselect", options: ["red"] }
            ]
          }
        ]
      }
    })
    const [thing] = organisation.settings.record_types
    const record = await client.post("/records", { type: "thing", custom: { n: 2, links: ["red"] } })
    expect(record.status).toBe(201)
    const changed = await server().admin.put(`/organisations/${organisation.id}/settings`, {
      ...organisation.settings,
      record_types: [
        {
          ...thing,
          fields: [
            { key: "n", type: "number" },
            { key: "links", type: "relation", target: "thing" },
            { key: "total", type: "rollup", rollup: { relation: "links", field: "n", aggregate: "sum" } }
          ]
        }
      ]
    })
    expect(changed.status, changed.text).toBe(200)
    const read = await client.get(`/records/${record.body.id}`)
    expect(read.status).toBe(200)
    expect(read.body.custom).toEqual({ n: 2, links: ["red"], total: 0 })
    const listed = await client.get("/records?type=thing")
    expect(listed.status).toBe(200)
    expect(listed.body.data[0].custom.total).toBe(0)
  })

  it("takes ids in upper case as the same ids, in paths, links and filters, on every store", async () => {
    const { client } = await tenant(server)
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const upper = contact.body.id.toUpperCase()
    const created = await client.post("/records", { type: "timesheet", contact_id: upper, owner_id: upper })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ contact_id: contact.body.id, owner_id: contact.body.id })
    const read = await client.get(`/records/${created.body.id.toUpperCase()}`)
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ id: created.body.id, contact_id: contact.body.id })
    const patched = await client.patch(`/records/${created.body.id.toUpperCase()}`, { title: "Upper" })
    expect(patched.status).toBe(200)
    expect(patched.body.id).toBe(created.body.id)
    const listed = await client.get(`/records?contact_id=${upper}`)
    expect(listed.body.data.map((r: any) => r.id)).toEqual([created.body.id])
  })

  it("needs write to create or change and read to list", async () => {
    const owner = await tenant(server)
    const record = await owner.client.post("/records", { type: "timesheet" })
    const reader = server().as(
      (await server().admin.post(`/organisations/${owner.organisation.id}/keys`, { scopes: ["read"] })).body.key
    )
    const refused = await reader.post("/records", { type: "timesheet" })
    expect(refused.status).toBe(403)
    expect(refused.body.error).toBe("missing_scope:write")
    expect((await reader.patch(`/records/${record.body.id}`, { title: "x" })).body.error).toBe("missing_scope:write")
    expect((await reader.get(`/records/${record.body.id}`)).status).toBe(200)
  })
})
