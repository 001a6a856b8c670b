import { expect, it } from "vitest"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const TASK_FIELDS = [
  "assignee_id",
  "completed_at",
  "created_at",
  "description",
  "done",
  "due_at",
  "entity_id",
  "entity_type",
  "id",
  "priority",
  "title",
  "type",
  "updated_at"
]

const events = async (client: Client, name?: string): Promise<Array<any>> => {
  const page = await client.get(`/events?since=0${name === undefined ? "" : `&event=${name}`}`)
  expect(page.status).toBe(200)
  return page.body.data
}

const paths = (response: { body: any }): Array<string> => response.body.detail.map((issue: any) => issue.path).sort()

onEveryStore("tasks", (server) => {
  it("creates, reads, updates and deletes a task, with defaults and UTC due dates", async () => {
    const { client } = await server().tenant()
    const created = await client.post("/tasks", {
      title: "Call back",
      due_at: "2026-12-01T10:00:00+02:00",
      description: "about the offer"
    })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual(TASK_FIELDS)
    expect(created.body).toMatchObject({
      title: "Call back",
      type: "todo",
      priority: "normal",
      due_at: "2026-12-01T08:00:00.000Z",
      done: false,
      completed_at: null,
      assignee_id: null,
      entity_type: null,
      entity_id: null,
      description: "about the offer"
    })
    expect(created.body.created_at).toMatch(ISO_MS)
    expect(created.body.updated_at).toMatch(ISO_MS)

    const id = created.body.id
    const read = await client.get(`/tasks/${id}`)
    expect(read.status).toBe(200)
    expect(read.body).toEqual(created.body)

    const assignee = crypto.randomUUID()
    const patched = await client.patch(`/tasks/${id}`, { priority: "urgent", description: null, assignee_id: assignee })
    expect(patched.status).toBe(200)
    expect(patched.body).toEqual({
      ...created.body,
      priority: "urgent",
      description: null,
      assignee_id: assignee,
      updated_at: patched.body.updated_at
    })
    const moved = await client.patch(`/tasks/${id}`, { due_at: "2026-12-24T18:30:00-05:00", type: "call" })
    expect(moved.body).toMatchObject({ due_at: "2026-12-24T23:30:00.000Z", type: "call", priority: "urgent" })
    const cleared = await client.patch(`/tasks/${id}`, { due_at: null })
    expect(cleared.body).toMatchObject({ due_at: null, title: "Call back", assignee_id: assignee })
    expect((await client.get(`/tasks/${id}`)).body).toEqual(cleared.body)

    const full = await client.post("/tasks", { title: "Email", type: "email", priority: "low", assignee_id: assignee })
    expect(full.body).toMatchObject({ type: "email", priority: "low", assignee_id: assignee, due_at: null })

    const removed = await client.delete(`/tasks/${id}`)
    expect(removed.status).toBe(204)
    expect(removed.text).toBe("")
    for (const response of [
      await client.get(`/tasks/${id}`),
      await client.patch(`/tasks/${id}`, { title: "again" }),
      await client.delete(`/tasks/${id}`),
      await client.post(`/tasks/${id}/complete`)
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.error).toBe("not_found")
    }
    expect((await client.get("/tasks")).body.data.map((t: any) => t.id)).toEqual([full.body.id])
  })

  it("refuses bad bodies, an empty PATCH and unknown fields", async () => {
    const { client } = await server().tenant()
    for (const body of [
      {},
      { title: "" },
      { title: "x", priority: "asap" },
      { title: "x", due_at: "tomorrow" },
      { title: "x", entity_type: "ticket", entity_id: crypto.randomUUID() },
      { title: "x", nickname: "y" }
    ]) {
      const refused = await client.post("/tasks", body)
      expect(refused.status, JSON.stringify(body)).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
    }
    const task = await client.post("/tasks", { title: "x" })
    for (const body of [{}, { nickname: "y" }]) {
      const empty = await client.patch(`/tasks/${task.body.id}`, body)
      expect(empty.status).toBe(422)
      expect(empty.body.error).toBe("no_fields_to_update")
    }
    const mixed = await client.patch(`/tasks/${task.body.id}`, { title: "y", nickname: "y" })
    expect(mixed.status).toBe(422)
    expect(mixed.body.error).toBe("validation_failed")
    expect(paths(mixed)).toEqual(["nickname"])
    expect((await client.get(`/tasks/${task.body.id}`)).body).toEqual(task.body)
  })

  it("attaches to a record only with both entity_type and entity_id", async () => {
    const { client } = await server().tenant()
    const contact = await client.post("/contacts", { first_name: "Ada" })
    for (const body of [
      { title: "x", entity_type: "contact" },
      { title: "x", entity_id: contact.body.id },
      { title: "x", entity_type: "contact", entity_id: null },
      { title: "x", entity_type: null, entity_id: contact.body.id }
    ]) {
      const refused = await client.post("/tasks", body)
      expect(refused.status, JSON.stringify(body)).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
    }
    expect((await client.get("/tasks")).body.data).toEqual([])
    const attached = await client.post("/tasks", { title: "x", entity_type: "contact", entity_id: contact.body.id })
    expect(attached.status).toBe(201)
    expect(attached.body).toMatchObject({ entity_type: "contact", entity_id: contact.body.id })
    const detached = await client.patch(`/tasks/${attached.body.id}`, { entity_type: null, entity_id: null })
    expect(detached.status).toBe(200)
    expect(detached.body).toMatchObject({ entity_type: null, entity_id: null })
  })

  it("attaches only to a live contact, company or deal of the organisation", async () => {
    const a = await server().tenant()
    const b = await server().tenant()
    const contact = await a.client.post("/contacts", { first_name: "Ada" })
    const company = await a.client.post("/companies", { name: "Acme" })
    const deal = await a.client.post("/deals", { title: "Deal" })
    for (const [type, entity] of [
      ["contact", contact],
      ["company", company],
      ["deal", deal]
    ] as const) {
      const attached = await a.client.post("/tasks", { title: type, entity_type: type, entity_id: entity.body.id })
      expect(attached.status, type).toBe(201)
      expect(attached.body).toMatchObject({ entity_type: type, entity_id: entity.body.id })
    }

    const foreignContact = await b.client.post("/contacts", { first_name: "Elsewhere" })
    const foreignDeal = await b.client.post("/deals", { title: "Elsewhere" })
    const goneContact = await a.client.post("/contacts", { first_name: "Gone" })
    const goneDeal = await a.client.post("/deals", { title: "Gone" })
    await a.client.delete(`/contacts/${goneContact.body.id}`)
    await a.client.delete(`/deals/${goneDeal.body.id}`)
    for (const [type, id, why] of [
      ["contact", foreignContact.body.id, "another organisation's contact"],
      ["deal", foreignDeal.body.id, "another organisation's deal"],
      ["contact", goneContact.body.id, "an archived contact"],
      ["deal", goneDeal.body.id, "an archived deal"],
      ["company", crypto.randomUUID(), "nobody's company"],
      ["company", contact.body.id, "a contact called a company"]
    ]) {
      const refused = await a.client.post("/tasks", { title: "x", entity_type: type, entity_id: id })
      expect(refused.status, why).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
      expect(paths(refused), why).toEqual(["entity_id"])
    }
    const task = (await a.client.get("/tasks")).body.data[0]
    const repointed = await a.client.patch(`/tasks/${task.id}`, {
      entity_type: "contact",
      entity_id: foreignContact.body.id
    })
    expect(repointed.status).toBe(422)
    expect(paths(repointed)).toEqual(["entity_id"])
    expect((await a.client.get("/tasks")).body.data).toHaveLength(3)
  })

  it("completes once: a second call keeps completed_at and emits nothing", async () => {
    const { client } = await server().tenant()
    const deal = await client.post("/deals", { title: "Deal" })
    const task = await client.post("/tasks", { title: "Finish", entity_type: "deal", entity_id: deal.body.id })
    const start = Date.now()
    const done = await client.post(`/tasks/${task.body.id}/complete`)
    const end = Date.now()
    expect(done.status).toBe(200)
    expect(Object.keys(done.body).sort()).toEqual(TASK_FIELDS)
    expect(done.body).toMatchObject({ id: task.body.id, done: true, title: "Finish" })
    expect(done.body.completed_at).toMatch(ISO_MS)
    expect(Date.parse(done.body.completed_at)).toBeGreaterThanOrEqual(start - 1000)
    expect(Date.parse(done.body.completed_at)).toBeLessThanOrEqual(end + 1000)
    expect((await client.get(`/tasks/${task.body.id}`)).body).toEqual(done.body)

    const completed = await events(client, "task.completed")
    expect(completed).toHaveLength(1)
    expect(completed[0].data).toEqual({
      id: task.body.id,
      title: "Finish",
      entity_type: "deal",
      entity_id: deal.body.id
    })
    const all = await events(client)

    await new Promise((resolve) => setTimeout(resolve, 5))
    const again = await client.post(`/tasks/${task.body.id}/complete`)
    expect(again.status).toBe(200)
    expect(again.body.done).toBe(true)
    expect(again.body.completed_at).toBe(done.body.completed_at)
    expect(await events(client)).toEqual(all)
    expect((await client.post(`/tasks/${crypto.randomUUID()}/complete`)).status).toBe(404)
  })

  it("answers ten concurrent completions with one completion time and one task.completed", async () => {
    const { client } = await server().tenant()
    const task = await client.post("/tasks", { title: "Race" })
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => client.post(`/tasks/${task.body.id}/complete`))
    )
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200))
    expect(new Set(responses.map((r) => r.body.completed_at)).size).toBe(1)
    expect(responses[0]!.body.completed_at).toMatch(ISO_MS)
    expect(responses.every((r) => r.body.done === true)).toBe(true)
    expect(await events(client, "task.completed")).toHaveLength(1)
    expect((await client.get(`/tasks/${task.body.id}`)).body.completed_at).toBe(responses[0]!.body.completed_at)
  })

  it("reopens with PATCH done:false and completes with PATCH done:true, emitting once", async () => {
    const { client } = await server().tenant()
    const task = await client.post("/tasks", { title: "Toggle" })
    const done = await client.patch(`/tasks/${task.body.id}`, { done: true })
    expect(done.status).toBe(200)
    expect(done.body.done).toBe(true)
    expect(done.body.completed_at).toMatch(ISO_MS)
    expect(await events(client, "task.completed")).toHaveLength(1)

    const doneAgain = await client.patch(`/tasks/${task.body.id}`, { done: true, title: "Toggle!" })
    expect(doneAgain.status).toBe(200)
    expect(doneAgain.body).toMatchObject({ done: true, title: "Toggle!", completed_at: done.body.completed_at })
    expect(await events(client, "task.completed")).toHaveLength(1)

    const reopened = await client.patch(`/tasks/${task.body.id}`, { done: false })
    expect(reopened.status).toBe(200)
    expect(reopened.body).toMatchObject({ done: false, completed_at: null, title: "Toggle!" })
    expect((await client.get(`/tasks/${task.body.id}`)).body).toEqual(reopened.body)
    expect((await client.get("/tasks?done=false")).body.data.map((t: any) => t.id)).toEqual([task.body.id])
    expect((await client.patch(`/tasks/${task.body.id}`, { done: "yes" })).status).toBe(422)
  })

  it("emits task.created with exactly the catalogue's fields", async () => {
    const { client } = await server().tenant()
    const company = await client.post("/companies", { name: "Acme" })
    const task = await client.post("/tasks", {
      title: "Visit",
      type: "meeting",
      priority: "high",
      due_at: "2026-12-01T10:00:00+02:00",
      assignee_id: crypto.randomUUID(),
      entity_type: "company",
      entity_id: company.body.id,
      description: "bring slides"
    })
    const plain = await client.post("/tasks", { title: "Plain" })
    const created = await events(client, "task.created")
    expect(created.map((e) => e.data)).toEqual([
      {
        id: task.body.id,
        title: "Visit",
        type: "meeting",
        priority: "high",
        due_at: "2026-12-01T08:00:00.000Z",
        entity_type: "company",
        entity_id: company.body.id
      },
      {
        id: plain.body.id,
        title: "Plain",
        type: "todo",
        priority: "normal",
        due_at: null,
        entity_type: null,
        entity_id: null
      }
    ])
    // PATCH and archive emit no task event of their own.
    await client.patch(`/tasks/${plain.body.id}`, { title: "Plainer" })
    await client.delete(`/tasks/${plain.body.id}`)
    expect((await events(client)).map((e) => e.event)).toEqual(["company.created", "task.created", "task.created"])
  })

  it("filters by done, priority, assignee_id and entity_id, and refuses bad filter values", async () => {
    const { client } = await server().tenant()
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const alice = crypto.randomUUID()
    const bob = crypto.randomUUID()
    const first = await client.post("/tasks", {
      title: "first",
      priority: "high",
      assignee_id: alice,
      entity_type: "contact",
      entity_id: contact.body.id
    })
    const second = await client.post("/tasks", { title: "second", priority: "low", assignee_id: bob })
    const third = await client.post("/tasks", { title: "third" })
    await client.post(`/tasks/${first.body.id}/complete`)

    // Tasks created in the same millisecond may list in either order, so sets are compared.
    const found = async (query: string) => {
      const page = await client.get(`/tasks?${query}`)
      expect(page.status, query).toBe(200)
      return page.body.data.map((t: any) => t.id).sort()
    }
    const set = (...tasks: Array<{ body: any }>) => tasks.map((t) => t.body.id).sort()
    expect(await found("")).toEqual(set(first, second, third))
    expect(await found("done=true")).toEqual(set(first))
    expect(await found("done=false")).toEqual(set(second, third))
    expect(await found("priority=high")).toEqual(set(first))
    expect(await found("priority=normal")).toEqual(set(third))
    expect(await found("priority=urgent")).toEqual([])
    expect(await found(`assignee_id=${alice}`)).toEqual(set(first))
    expect(await found(`assignee_id=${bob}&done=false`)).toEqual(set(second))
    expect(await found(`entity_id=${contact.body.id}`)).toEqual(set(first))
    expect(await found(`entity_id=${crypto.randomUUID()}`)).toEqual([])

    const page = await client.get("/tasks?limit=2")
    expect(page.body).toMatchObject({ limit: 2, offset: 0, has_more: true })
    expect(page.body.data).toHaveLength(2)
    for (const query of [
      "done=maybe",
      "done=1",
      "priority=asap",
      "assignee_id=bob",
      "entity_id=not-a-uuid",
      "limit=201"
    ]) {
      const refused = await client.get(`/tasks?${query}`)
      expect(refused.status, query).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
    }
  })

  it("keeps organisations apart and refuses writes to a read-only key", async () => {
    const a = await server().tenant()
    const b = await server().tenant()
    const task = await a.client.post("/tasks", { title: "Private" })
    const id = task.body.id
    for (const response of [
      await b.client.get(`/tasks/${id}`),
      await b.client.patch(`/tasks/${id}`, { title: "stolen" }),
      await b.client.delete(`/tasks/${id}`),
      await b.client.post(`/tasks/${id}/complete`)
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.error).toBe("not_found")
    }
    expect((await b.client.get("/tasks")).body.data).toEqual([])
    expect((await a.client.get(`/tasks/${id}`)).body).toEqual(task.body)

    const readOnly = await server().admin.post(`/organisations/${a.organisation.id}/keys`, {
      name: "reader",
      scopes: ["read"]
    })
    const reader = server().as(readOnly.body.key)
    for (const response of [
      await reader.post("/tasks", { title: "x" }),
      await reader.post(`/tasks/${id}/complete`),
      await reader.patch(`/tasks/${id}`, { done: true })
    ]) {
      expect(response.status).toBe(403)
      expect(response.body.error).toBe("missing_scope:write")
    }
    expect((await reader.get(`/tasks/${id}`)).body).toEqual(task.body)
    expect(await events(a.client, "task.completed")).toEqual([])
  })
})
