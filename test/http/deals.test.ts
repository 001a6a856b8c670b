import { expect, it } from "vitest"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const DAY_MS = 86_400_000

const DEAL_FIELDS = [
  "closed_at",
  "company_id",
  "contact_id",
  "created_at",
  "currency",
  "custom",
  "expected_close_date",
  "id",
  "lost_reason",
  "owner_id",
  "pipeline_id",
  "status_id",
  "status_kind",
  "title",
  "updated_at",
  "value"
]

const REQUIRED = ["value", "expected_close_date", "contact_id", "custom.segment"]

/**
 * Two pipelines with ids chosen here. The first stage of "Sales" is a won stage, so "first open
 * stage" has to skip it; "Proposal" carries a playbook; "Contract" requires fields and carries one too.
 */
const fixture = () => {
  const id = () => crypto.randomUUID()
  const ids = {
    sales: id(),
    partners: id(),
    closedEarlier: id(),
    lead: id(),
    proposal: id(),
    contract: id(),
    won: id(),
    lost: id(),
    intro: id(),
    signed: id()
  }
  const pipelines = [
    {
      id: ids.sales,
      name: "Sales",
      stages: [
        { id: ids.closedEarlier, name: "Closed earlier", kind: "won", required_fields: [], playbook: [] },
        { id: ids.lead, name: "Lead", kind: "open", required_fields: [], playbook: [] },
        {
          id: ids.proposal,
          name: "Proposal",
          kind: "open",
          required_fields: [],
          playbook: [{ title: "Send proposal", due_in_days: 3, priority: "high" }]
        },
        {
          id: ids.contract,
          name: "Contract",
          kind: "open",
          required_fields: REQUIRED,
          playbook: [{ title: "Countersign", due_in_days: null, priority: "normal" }]
        },
        { id: ids.won, name: "Won", kind: "won", required_fields: [], playbook: [] },
        { id: ids.lost, name: "Lost", kind: "lost", required_fields: [], playbook: [] }
      ]
    },
    {
      id: ids.partners,
      name: "Partners",
      stages: [
        { id: ids.intro, name: "Intro", kind: "open", required_fields: [], playbook: [] },
        { id: ids.signed, name: "Signed", kind: "won", required_fields: [], playbook: [] }
      ]
    }
  ]
  return { ids, pipelines, settings: { default_currency: "CZK", pipelines } }
}

const events = async (client: Client, name?: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0${name === undefined ? "" : `&event=${name}`}`)
  expect(page.status).toBe(200)
  return page.body.data
}

const paths = (response: { body: any }): Array<string> => response.body.detail.map((issue: any) => issue.path).sort()

onEveryStore("deals", (server) => {
  it("creates, reads, updates and deletes a deal", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const company = await client.post("/companies", { name: "Acme" })
    const owner = crypto.randomUUID()
    const created = await client.post("/deals", {
      title: "Big one",
      value: 1000,
      currency: "EUR",
      contact_id: contact.body.id,
      company_id: company.body.id,
      owner_id: owner,
      expected_close_date: "2026-12-31",
      custom: { segment: "smb" }
    })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual(DEAL_FIELDS)
    expect(created.body).toMatchObject({
      title: "Big one",
      value: 1000,
      currency: "EUR",
      pipeline_id: ids.sales,
      status_id: ids.lead,
      status_kind: "open",
      contact_id: contact.body.id,
      company_id: company.body.id,
      owner_id: owner,
      expected_close_date: "2026-12-31",
      lost_reason: null,
      closed_at: null,
      custom: { segment: "smb" }
    })
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(created.body.created_at).toMatch(ISO_MS)
    expect(created.body.updated_at).toMatch(ISO_MS)

    const id = created.body.id
    const read = await client.get(`/deals/${id}`)
    expect(read.status).toBe(200)
    expect(read.body).toEqual(created.body)

    const patched = await client.patch(`/deals/${id}`, { title: "Bigger one", company_id: null, owner_id: null })
    expect(patched.status).toBe(200)
    expect(patched.body).toEqual({
      ...created.body,
      title: "Bigger one",
      company_id: null,
      owner_id: null,
      updated_at: patched.body.updated_at
    })
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at))
    expect((await client.get(`/deals/${id}`)).body).toEqual(patched.body)
    const cleared = await client.patch(`/deals/${id}`, { value: null, expected_close_date: null, contact_id: null })
    expect(cleared.body).toMatchObject({
      title: "Bigger one",
      value: null,
      expected_close_date: null,
      contact_id: null
    })

    expect((await client.get("/deals")).body.data.map((d: any) => d.id)).toEqual([id])
    const removed = await client.delete(`/deals/${id}`)
    expect(removed.status).toBe(204)
    expect(removed.text).toBe("")
    for (const response of [
      await client.get(`/deals/${id}`),
      await client.patch(`/deals/${id}`, { title: "again" }),
      await client.delete(`/deals/${id}`),
      await client.post(`/deals/${id}/status`, { status_id: ids.proposal }),
      await client.get(`/deals/${id}/stage-history`)
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.error).toBe("not_found")
    }
    expect((await client.get("/deals")).body.data).toEqual([])
    expect((await client.get(`/deals?pipeline_id=${ids.sales}`)).body.data).toEqual([])
  })

  it("places a deal without pipeline_id in the first pipeline's first open stage, in the organisation's currency", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const placed = await client.post("/deals", { title: "Default placement" })
    expect(placed.status).toBe(201)
    expect(placed.body).toMatchObject({
      pipeline_id: ids.sales,
      status_id: ids.lead,
      status_kind: "open",
      currency: "CZK",
      value: null,
      closed_at: null,
      custom: {}
    })
    const inPipeline = await client.post("/deals", { title: "Partner", pipeline_id: ids.partners })
    expect(inPipeline.status).toBe(201)
    expect(inPipeline.body).toMatchObject({ pipeline_id: ids.partners, status_id: ids.intro, status_kind: "open" })
    const inStage = await client.post("/deals", { title: "Later", pipeline_id: ids.sales, status_id: ids.proposal })
    expect(inStage.status).toBe(201)
    expect(inStage.body).toMatchObject({ pipeline_id: ids.sales, status_id: ids.proposal })
  })

  it("refuses a stage of another pipeline or an unknown pipeline, naming the field", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const foreignStage = await client.post("/deals", { title: "x", status_id: ids.intro })
    expect(foreignStage.status).toBe(422)
    expect(foreignStage.body.error).toBe("validation_failed")
    expect(paths(foreignStage)).toEqual(["status_id"])
    const mismatched = await client.post("/deals", { title: "x", pipeline_id: ids.sales, status_id: ids.signed })
    expect(mismatched.status).toBe(422)
    expect(paths(mismatched)).toEqual(["status_id"])
    const unknownPipeline = await client.post("/deals", { title: "x", pipeline_id: crypto.randomUUID() })
    expect(unknownPipeline.status).toBe(422)
    expect(unknownPipeline.body.error).toBe("validation_failed")
    expect(paths(unknownPipeline)).toEqual(["pipeline_id"])
    const unknownStage = await client.post("/deals", { title: "x", status_id: crypto.randomUUID() })
    expect(unknownStage.status).toBe(422)
    expect(paths(unknownStage)).toEqual(["status_id"])
    expect((await client.get("/deals")).body.data).toEqual([])
    expect(await events(client)).toEqual([])
  })

  it("links a contact and a company only of the same organisation, naming the field", async () => {
    const { settings } = fixture()
    const a = await server().tenant({ settings })
    const b = await server().tenant({ settings: fixture().settings })
    const foreignContact = await b.client.post("/contacts", { first_name: "Elsewhere" })
    const foreignCompany = await b.client.post("/companies", { name: "Elsewhere Ltd" })
    for (const [field, id] of [
      ["contact_id", foreignContact.body.id],
      ["contact_id", crypto.randomUUID()],
      ["company_id", foreignCompany.body.id],
      ["company_id", crypto.randomUUID()]
    ]) {
      const refused = await a.client.post("/deals", { title: "x", [field]: id })
      expect(refused.status, `${field} ${id}`).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
      expect(paths(refused)).toEqual([field])
    }
    const archived = await a.client.post("/contacts", { first_name: "Gone" })
    await a.client.delete(`/contacts/${archived.body.id}`)
    const toArchived = await a.client.post("/deals", { title: "x", contact_id: archived.body.id })
    expect(toArchived.status).toBe(422)
    expect(paths(toArchived)).toEqual(["contact_id"])
    expect((await a.client.get("/deals")).body.data).toEqual([])

    const deal = await a.client.post("/deals", { title: "Own" })
    const patched = await a.client.patch(`/deals/${deal.body.id}`, { contact_id: foreignContact.body.id })
    expect(patched.status).toBe(422)
    expect(paths(patched)).toEqual(["contact_id"])
    expect((await a.client.get(`/deals/${deal.body.id}`)).body.contact_id).toBeNull()
    const own = await a.client.post("/contacts", { first_name: "Own" })
    const linked = await a.client.patch(`/deals/${deal.body.id}`, { contact_id: own.body.id })
    expect(linked.status).toBe(200)
    expect(linked.body.contact_id).toBe(own.body.id)
  })

  it("refuses a value finer than the currency's minor unit and keeps money a JSON number", async () => {
    const { client } = await server().tenant({ settings: fixture().settings })
    for (const body of [
      { title: "x", value: 10.123, currency: "EUR" },
      { title: "x", value: 1.5, currency: "JPY" },
      { title: "x", value: 0.001 }
    ]) {
      const refused = await client.post("/deals", body)
      expect(refused.status, JSON.stringify(body)).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
      expect(paths(refused)).toEqual(["value"])
    }
    const fine = await client.post("/deals", { title: "x", value: 1234.5, currency: "EUR" })
    expect(fine.status).toBe(201)
    expect(fine.body.value).toBe(1234.5)
    expect(fine.text).toContain('"value":1234.5')
    expect((await client.get(`/deals/${fine.body.id}`)).body.value).toBe(1234.5)
    const yen = await client.post("/deals", { title: "y", value: 1500, currency: "JPY" })
    expect(yen.status).toBe(201)
    expect(yen.body.value).toBe(1500)

    const finer = await client.patch(`/deals/${fine.body.id}`, { value: 10.125 })
    expect(finer.status).toBe(422)
    expect(paths(finer)).toEqual(["value"])
    expect((await client.get(`/deals/${fine.body.id}`)).body.value).toBe(1234.5)
  })

  it("refuses the stage on PATCH with a pointer to the status endpoint, an empty PATCH and unknown fields", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const deal = await client.post("/deals", { title: "Stay" })
    for (const body of [
      { status_id: ids.proposal },
      { pipeline_id: ids.partners },
      { title: "Moved?", status_id: ids.won }
    ]) {
      const refused = await client.patch(`/deals/${deal.body.id}`, body)
      expect(refused.status, JSON.stringify(body)).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
      const issue = refused.body.detail.find((i: any) => i.path === "status_id" || i.path === "pipeline_id")
      expect(issue).toBeDefined()
      expect(issue.message).toContain("POST /deals/{id}/status")
    }
    for (const body of [{}, { nickname: "x" }]) {
      const empty = await client.patch(`/deals/${deal.body.id}`, body)
      expect(empty.status).toBe(422)
      expect(empty.body.error).toBe("no_fields_to_update")
    }
    const mixed = await client.patch(`/deals/${deal.body.id}`, { title: "B", nickname: "x" })
    expect(mixed.status).toBe(422)
    expect(mixed.body.error).toBe("validation_failed")
    expect(paths(mixed)).toEqual(["nickname"])
    const unknownOnCreate = await client.post("/deals", { title: "x", stage: "won" })
    expect(unknownOnCreate.status).toBe(422)
    expect(paths(unknownOnCreate)).toEqual(["stage"])
    const moveWithExtra = await client.post(`/deals/${deal.body.id}/status`, { status_id: ids.won, note: "x" })
    expect(moveWithExtra.status).toBe(422)
    expect(paths(moveWithExtra)).toEqual(["note"])
    expect((await client.get(`/deals/${deal.body.id}`)).body).toEqual(deal.body)
  })

  it("moves a deal only to a stage of its own pipeline", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const deal = await client.post("/deals", { title: "Mover" })
    const moved = await client.post(`/deals/${deal.body.id}/status`, { status_id: ids.proposal })
    expect(moved.status).toBe(200)
    expect(Object.keys(moved.body).sort()).toEqual(DEAL_FIELDS)
    expect(moved.body).toMatchObject({
      id: deal.body.id,
      status_id: ids.proposal,
      status_kind: "open",
      closed_at: null
    })
    expect((await client.get(`/deals/${deal.body.id}`)).body).toEqual(moved.body)
    const before = (await events(client)).length

    for (const statusId of [ids.signed, ids.intro, crypto.randomUUID()]) {
      const refused = await client.post(`/deals/${deal.body.id}/status`, { status_id: statusId })
      expect(refused.status).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
      expect(paths(refused)).toEqual(["status_id"])
    }
    const missing = await client.post(`/deals/${deal.body.id}/status`, {})
    expect(missing.status).toBe(422)
    expect(paths(missing)).toEqual(["status_id"])
    expect((await client.get(`/deals/${deal.body.id}`)).body).toEqual(moved.body)
    expect(await events(client)).toHaveLength(before)
  })

  it("stamps closed_at on won and lost, keeps lost_reason, and clears closed_at back in an open stage", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const deal = await client.post("/deals", { title: "Closer", contact_id: contact.body.id })
    const id = deal.body.id

    const start = Date.now()
    const won = await client.post(`/deals/${id}/status`, { status_id: ids.won })
    const end = Date.now()
    expect(won.status).toBe(200)
    expect(won.body).toMatchObject({ status_id: ids.won, status_kind: "won", lost_reason: null })
    expect(won.body.closed_at).toMatch(ISO_MS)
    expect(Date.parse(won.body.closed_at)).toBeGreaterThanOrEqual(start - 1000)
    expect(Date.parse(won.body.closed_at)).toBeLessThanOrEqual(end + 1000)
    expect(
      (await events(client))
        .map((e) => e.event)
        .slice(2)
        .sort()
    ).toEqual(["deal.status_changed", "deal.won"])

    const reopened = await client.post(`/deals/${id}/status`, { status_id: ids.lead })
    expect(reopened.status).toBe(200)
    expect(reopened.body).toMatchObject({ status_id: ids.lead, status_kind: "open", closed_at: null })

    const lost = await client.post(`/deals/${id}/status`, { status_id: ids.lost, lost_reason: "Too expensive" })
    expect(lost.status).toBe(200)
    expect(lost.body).toMatchObject({ status_id: ids.lost, status_kind: "lost", lost_reason: "Too expensive" })
    expect(lost.body.closed_at).toMatch(ISO_MS)
    expect((await client.get(`/deals/${id}`)).body).toEqual(lost.body)

    const names = (await events(client)).map((e) => e.event)
    expect(names.filter((n) => n === "deal.status_changed")).toHaveLength(3)
    expect(names.filter((n) => n === "deal.won")).toHaveLength(1)
    expect(names.filter((n) => n === "deal.lost")).toHaveLength(1)
    const [lostEvent] = await events(client, "deal.lost")
    expect(lostEvent.data).toEqual({ id, title: "Closer", contact_id: contact.body.id, lost_reason: "Too expensive" })
  })

  it("changes nothing and emits nothing when moved to the stage it is already in", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const deal = await client.post("/deals", { title: "Still" })
    const won = await client.post(`/deals/${deal.body.id}/status`, { status_id: ids.won })
    const eventsBefore = await events(client)
    const historyBefore = (await client.get(`/deals/${deal.body.id}/stage-history`)).body.data
    await new Promise((resolve) => setTimeout(resolve, 5))

    const again = await client.post(`/deals/${deal.body.id}/status`, { status_id: ids.won })
    expect(again.status).toBe(200)
    expect(again.body).toEqual(won.body)
    expect(again.body.updated_at).toBe(won.body.updated_at)
    expect(again.body.closed_at).toBe(won.body.closed_at)
    expect((await client.get(`/deals/${deal.body.id}`)).body).toEqual(won.body)
    expect(await events(client)).toEqual(eventsBefore)
    expect((await client.get(`/deals/${deal.body.id}/stage-history`)).body.data).toEqual(historyBefore)
  })

  it("refuses a move lacking the stage's required fields, naming each, and moves once they are present", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const deal = await client.post("/deals", { title: "Needs data", custom: { tier: "gold" } })
    const id = deal.body.id
    const eventsBefore = await events(client)
    const historyBefore = (await client.get(`/deals/${id}/stage-history`)).body.data

    const refused = await client.post(`/deals/${id}/status`, { status_id: ids.contract })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toBe("validation_failed")
    expect(paths(refused)).toEqual([...REQUIRED].sort())
    expect((await client.get(`/deals/${id}`)).body).toEqual(deal.body)
    expect(await events(client)).toEqual(eventsBefore)
    expect((await client.get(`/deals/${id}/stage-history`)).body.data).toEqual(historyBefore)

    const contact = await client.post("/contacts", { first_name: "Ada" })
    await client.patch(`/deals/${id}`, { value: 500, contact_id: contact.body.id })
    const partly = await client.post(`/deals/${id}/status`, { status_id: ids.contract })
    expect(partly.status).toBe(422)
    expect(paths(partly)).toEqual(["custom.segment", "expected_close_date"])

    const filled = await client.patch(`/deals/${id}`, { expected_close_date: "2026-12-31", custom: { segment: "smb" } })
    expect(filled.status).toBe(200)
    const moved = await client.post(`/deals/${id}/status`, { status_id: ids.contract })
    expect(moved.status).toBe(200)
    expect(moved.body).toMatchObject({ status_id: ids.contract, status_kind: "open" })
  })

  it("counts blank text and an empty list as missing for a stage's required field, as records do", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const filled = { value: 500, contact_id: contact.body.id, expected_close_date: "2026-12-31" }

    for (const blank of ["", "  \t", []]) {
      const created = await client.post("/deals", {
        title: "Blank",
        status_id: ids.contract,
        ...filled,
        custom: { segment: blank }
      })
      expect(created.status).toBe(422)
      expect(paths(created)).toEqual(["custom.segment"])

      const deal = await client.post("/deals", { title: "Blank", ...filled, custom: { segment: blank } })
      expect(deal.status).toBe(201)
      const refused = await client.post(`/deals/${deal.body.id}/status`, { status_id: ids.contract })
      expect(refused.status).toBe(422)
      expect(refused.body.detail).toEqual([
        { path: "custom.segment", message: "required by stage 'Contract'", code: "required_by_stage" }
      ])
      expect((await client.get(`/deals/${deal.body.id}`)).body.status_id).toBe(ids.lead)
    }

    const deal = await client.post("/deals", { title: "Listed", ...filled, custom: { segment: ["smb"] } })
    expect((await client.post(`/deals/${deal.body.id}/status`, { status_id: ids.contract })).status).toBe(200)
  })

  it("keeps the stage history oldest first, with the key that made each move", async () => {
    const { ids, settings } = fixture()
    const { client, keyId, organisation } = await server().tenant({ settings })
    const second = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      name: "second",
      scopes: ["read", "write"]
    })
    expect(second.status).toBe(201)
    const deal = await client.post("/deals", { title: "Travels" })
    const id = deal.body.id

    const initial = await client.get(`/deals/${id}/stage-history`)
    expect(initial.status).toBe(200)
    expect(Object.keys(initial.body)).toEqual(["data"])
    expect(initial.body.data).toHaveLength(1)
    expect(Object.keys(initial.body.data[0]).sort()).toEqual([
      "deal_id",
      "entered_at",
      "from_status_id",
      "key_id",
      "left_at",
      "pipeline_id",
      "status_id",
      "status_kind"
    ])
    expect(initial.body.data[0]).toMatchObject({
      deal_id: id,
      pipeline_id: ids.sales,
      from_status_id: null,
      status_id: ids.lead,
      status_kind: "open",
      left_at: null,
      key_id: keyId
    })

    await new Promise((resolve) => setTimeout(resolve, 5))
    await client.post(`/deals/${id}/status`, { status_id: ids.proposal })
    await new Promise((resolve) => setTimeout(resolve, 5))
    const byOtherKey = await server().as(second.body.key).post(`/deals/${id}/status`, { status_id: ids.won })
    expect(byOtherKey.status).toBe(200)
    await client.post(`/deals/${id}/status`, { status_id: ids.won })

    const history = (await client.get(`/deals/${id}/stage-history`)).body.data
    expect(history.map((v: any) => [v.from_status_id, v.status_id, v.status_kind, v.key_id])).toEqual([
      [null, ids.lead, "open", keyId],
      [ids.lead, ids.proposal, "open", keyId],
      [ids.proposal, ids.won, "won", second.body.id]
    ])
    for (const visit of history) {
      expect(visit.deal_id).toBe(id)
      expect(visit.pipeline_id).toBe(ids.sales)
      expect(visit.entered_at).toMatch(ISO_MS)
    }
    expect(history[0].left_at).toBe(history[1].entered_at)
    expect(history[1].left_at).toBe(history[2].entered_at)
    expect(history[2].left_at).toBeNull()
    expect(Date.parse(history[1].entered_at)).toBeGreaterThan(Date.parse(history[0].entered_at))
    expect(Date.parse(history[2].entered_at)).toBeGreaterThan(Date.parse(history[1].entered_at))
  })

  it("creates the stage's playbook tasks on entry, for the owner, and none on a refused move", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const owner = crypto.randomUUID()
    const deal = await client.post("/deals", { title: "Playbook", owner_id: owner })
    const id = deal.body.id
    expect((await client.get(`/tasks?entity_id=${id}`)).body.data).toEqual([])

    const start = Date.now()
    const moved = await client.post(`/deals/${id}/status`, { status_id: ids.proposal })
    const end = Date.now()
    expect(moved.status).toBe(200)
    const tasks = (await client.get(`/tasks?entity_id=${id}`)).body.data
    expect(tasks).toHaveLength(1)
    const [task] = tasks
    expect(task).toMatchObject({
      title: "Send proposal",
      type: "playbook",
      priority: "high",
      done: false,
      assignee_id: owner,
      entity_type: "deal",
      entity_id: id
    })
    expect(task.due_at).toMatch(ISO_MS)
    expect(Date.parse(task.due_at)).toBeGreaterThanOrEqual(start + 3 * DAY_MS - 1000)
    expect(Date.parse(task.due_at)).toBeLessThanOrEqual(end + 3 * DAY_MS + 1000)
    const created = await events(client, "task.created")
    expect(created).toHaveLength(1)
    expect(created[0].data).toMatchObject({ id: task.id, title: "Send proposal", entity_type: "deal", entity_id: id })

    const refused = await client.post(`/deals/${id}/status`, { status_id: ids.contract })
    expect(refused.status).toBe(422)
    expect((await client.get(`/tasks?entity_id=${id}`)).body.data).toHaveLength(1)
    expect(await events(client, "task.created")).toHaveLength(1)

    const contact = await client.post("/contacts", { first_name: "Ada" })
    await client.patch(`/deals/${id}`, {
      value: 10,
      contact_id: contact.body.id,
      expected_close_date: "2026-12-31",
      custom: { segment: "smb" }
    })
    expect((await client.post(`/deals/${id}/status`, { status_id: ids.contract })).status).toBe(200)
    const after = (await client.get(`/tasks?entity_id=${id}`)).body.data
    expect(after.map((t: any) => t.title).sort()).toEqual(["Countersign", "Send proposal"])
    expect(after.find((t: any) => t.title === "Countersign")).toMatchObject({ due_at: null, assignee_id: owner })
  })

  it("emits deal events with exactly the catalogue's fields", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const deal = await client.post("/deals", {
      title: "Evented",
      value: 250.5,
      currency: "EUR",
      contact_id: contact.body.id,
      owner_id: crypto.randomUUID(),
      expected_close_date: "2026-11-30",
      custom: { segment: "smb" }
    })
    const id = deal.body.id
    await client.patch(`/deals/${id}`, { title: "Evented deal" })
    await client.post(`/deals/${id}/status`, { status_id: ids.won })
    const other = await client.post("/deals", { title: "Loser" })
    await client.post(`/deals/${other.body.id}/status`, { status_id: ids.lost })

    const all = await events(client)
    const names = all.map((e) => e.event)
    expect(names.slice(1, 3)).toEqual(["deal.created", "deal.updated"])
    expect(names.slice(3, 5).sort()).toEqual(["deal.status_changed", "deal.won"])
    expect(names[5]).toBe("deal.created")
    expect(names.slice(6).sort()).toEqual(["deal.lost", "deal.status_changed"])
    const byName = (name: string, dealId: string) => all.find((e) => e.event === name && e.data.id === dealId)

    expect(byName("deal.created", id).data).toEqual({
      id,
      title: "Evented",
      value: 250.5,
      currency: "EUR",
      pipeline_id: ids.sales,
      status_id: ids.lead,
      contact_id: contact.body.id,
      expected_close_date: "2026-11-30"
    })
    expect(byName("deal.updated", id).data).toEqual({
      id,
      title: "Evented deal",
      value: 250.5,
      currency: "EUR",
      status_id: ids.lead,
      status_kind: "open",
      expected_close_date: "2026-11-30"
    })
    expect(byName("deal.status_changed", id).data).toEqual({
      id,
      title: "Evented deal",
      status_id: ids.won,
      status_kind: "won",
      contact_id: contact.body.id
    })
    expect(byName("deal.won", id).data).toEqual({
      id,
      title: "Evented deal",
      contact_id: contact.body.id,
      lost_reason: null
    })
    expect(byName("deal.status_changed", other.body.id).data).toEqual({
      id: other.body.id,
      title: "Loser",
      status_id: ids.lost,
      status_kind: "lost",
      contact_id: null
    })
    expect(byName("deal.lost", other.body.id).data).toEqual({
      id: other.body.id,
      title: "Loser",
      contact_id: null,
      lost_reason: null
    })
    // Archiving emits nothing.
    await client.delete(`/deals/${id}`)
    expect(await events(client)).toHaveLength(all.length)
  })

  it("filters by status_kind, contact_id, company_id and pipeline_id, and refuses bad filter values", async () => {
    const { ids, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const company = await client.post("/companies", { name: "Acme" })
    const withContact = await client.post("/deals", { title: "c", contact_id: contact.body.id })
    const partner = await client.post("/deals", { title: "p", pipeline_id: ids.partners, company_id: company.body.id })
    const closed = await client.post("/deals", { title: "w" })
    await client.post(`/deals/${closed.body.id}/status`, { status_id: ids.won })

    // Deals created in the same millisecond may list in either order, so sets are compared.
    const found = async (query: string) => {
      const page = await client.get(`/deals?${query}`)
      expect(page.status, query).toBe(200)
      return page.body.data.map((d: any) => d.id).sort()
    }
    const set = (...deals: Array<{ body: any }>) => deals.map((d) => d.body.id).sort()
    expect(await found("")).toEqual(set(closed, partner, withContact))
    expect(await found("status_kind=open")).toEqual(set(partner, withContact))
    expect(await found("status_kind=won")).toEqual(set(closed))
    expect(await found("status_kind=lost")).toEqual([])
    expect(await found(`contact_id=${contact.body.id}`)).toEqual(set(withContact))
    expect(await found(`company_id=${company.body.id}`)).toEqual(set(partner))
    expect(await found(`pipeline_id=${ids.partners}`)).toEqual(set(partner))
    expect(await found(`pipeline_id=${ids.sales}`)).toEqual(set(closed, withContact))
    expect(await found(`pipeline_id=${ids.sales}&status_kind=open`)).toEqual(set(withContact))
    expect(await found(`contact_id=${crypto.randomUUID()}`)).toEqual([])

    const page = await client.get("/deals?limit=2")
    expect(page.body).toMatchObject({ limit: 2, offset: 0, has_more: true })
    for (const query of [
      "status_kind=vip",
      "contact_id=not-a-uuid",
      "company_id=42",
      "pipeline_id=nope",
      "limit=0",
      "offset=-1"
    ]) {
      const refused = await client.get(`/deals?${query}`)
      expect(refused.status, query).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
    }
  })

  it("keeps organisations apart: another organisation's deal is 404 everywhere", async () => {
    const { ids, settings } = fixture()
    const a = await server().tenant({ settings })
    const b = await server().tenant({ settings: fixture().settings })
    const deal = await a.client.post("/deals", { title: "Private" })
    const id = deal.body.id
    for (const response of [
      await b.client.get(`/deals/${id}`),
      await b.client.patch(`/deals/${id}`, { title: "stolen" }),
      await b.client.delete(`/deals/${id}`),
      await b.client.post(`/deals/${id}/status`, { status_id: ids.won }),
      await b.client.get(`/deals/${id}/stage-history`)
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.error).toBe("not_found")
    }
    expect((await b.client.get("/deals")).body.data).toEqual([])
    expect((await b.client.get(`/deals?pipeline_id=${ids.sales}`)).body.data).toEqual([])
    expect((await a.client.get(`/deals/${id}`)).body).toEqual(deal.body)
    expect(await events(b.client)).toEqual([])
    for (const malformed of ["not-a-uuid", "1"]) {
      expect((await a.client.get(`/deals/${malformed}`)).status).toBe(404)
      expect((await a.client.post(`/deals/${malformed}/status`, { status_id: ids.won })).status).toBe(404)
    }
  })

  it("lists pipelines in settings order with their ordered stages", async () => {
    const { pipelines, settings } = fixture()
    const { client } = await server().tenant({ settings })
    const page = await client.get("/pipelines")
    expect(page.status).toBe(200)
    expect(page.body).toEqual({ data: pipelines, limit: 50, offset: 0, has_more: false })
    const first = await client.get("/pipelines?limit=1")
    expect(first.body).toEqual({ data: [pipelines[0]], limit: 1, offset: 0, has_more: true })
    const second = await client.get("/pipelines?limit=1&offset=1")
    expect(second.body).toEqual({ data: [pipelines[1]], limit: 1, offset: 1, has_more: false })
    expect((await client.get("/pipelines?limit=0")).status).toBe(422)

    const defaults = await server().tenant()
    const own = await defaults.client.get("/pipelines")
    expect(own.status).toBe(200)
    expect(own.body.data).toHaveLength(1)
    const [pipeline] = own.body.data
    expect(Object.keys(pipeline).sort()).toEqual(["id", "name", "stages"])
    for (const stage of pipeline.stages) {
      expect(Object.keys(stage).sort()).toEqual(["id", "kind", "name", "playbook", "required_fields"])
    }
    const placed = await defaults.client.post("/deals", { title: "x" })
    expect(placed.body.pipeline_id).toBe(pipeline.id)
    expect(placed.body.status_id).toBe(pipeline.stages.find((s: any) => s.kind === "open").id)
    expect(placed.body.currency).toBe(defaults.organisation.settings.default_currency)
  })

  it("refuses writes to a key with only read scope", async () => {
    const { ids, settings } = fixture()
    const { client, organisation } = await server().tenant({ settings })
    const deal = await client.post("/deals", { title: "Guarded" })
    const readOnly = await server().admin.post(`/organisations/${organisation.id}/keys`, {
      name: "reader",
      scopes: ["read"]
    })
    const reader = server().as(readOnly.body.key)
    for (const response of [
      await reader.post("/deals", { title: "x" }),
      await reader.post(`/deals/${deal.body.id}/status`, { status_id: ids.won }),
      await reader.patch(`/deals/${deal.body.id}`, { title: "x" }),
      await reader.delete(`/deals/${deal.body.id}`)
    ]) {
      expect(response.status).toBe(403)
      expect(response.body.error).toBe("missing_scope:write")
    }
    expect((await reader.get(`/deals/${deal.body.id}`)).body).toEqual(deal.body)
    expect((await reader.get("/pipelines")).status).toBe(200)
    expect((await reader.get(`/deals/${deal.body.id}/stage-history`)).status).toBe(200)
    expect((await client.get("/deals")).body.data).toHaveLength(1)
  })
})
