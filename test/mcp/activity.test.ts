/**
 * Notes and the activity timeline through the assistant tools, over Streamable HTTP against the
 * real server on every store: log_note (plain, and a call note that logs its call with exactly the
 * catalogue's event), recent_activity newest first with stages, tasks and calls, isolation, scopes.
 */
import { Calls, Contacts } from "@crm/core"
import type { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js"
import * as Effect from "effect/Effect"
import { afterEach, expect, it } from "vitest"
import { callTool, mcpClient } from "../support/mcp.js"
import { onEveryStore } from "../support/suite.js"

const CALL_KEYS = [
  "id",
  "provider",
  "direction",
  "status",
  "duration_seconds",
  "from_number",
  "to_number",
  "contact_id",
  "recording_url"
]

const opened: Array<McpClient> = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.close().catch(() => undefined)))
})

const ok = async (client: McpClient, name: string, args: Record<string, unknown> = {}) => {
  const outcome = await callTool(client, name, args)
  if (outcome.isError) throw new Error(`${name} failed: ${JSON.stringify(outcome.value)}`)
  return outcome.value
}

const refused = async (client: McpClient, name: string, args: Record<string, unknown> = {}) => {
  const outcome = await callTool(client, name, args)
  expect(outcome.isError, `${name} should fail`).toBe(true)
  return outcome.value as { error: string; detail: any }
}

// Timeline items are ordered by their instants: a pause keeps consecutive steps apart.
const pause = () => new Promise((resolve) => setTimeout(resolve, 5))

onEveryStore("MCP notes and activity", (server) => {
  const session = async (scopes: ReadonlyArray<string> = ["read", "write"]) => {
    const tenant = await server().tenant({ scopes })
    const mcp = await mcpClient(server(), tenant.key)
    opened.push(mcp)
    return { ...tenant, mcp }
  }

  it("logs a plain note that emits no event and shows in the timeline", async () => {
    const { client, mcp } = await session()
    const contact = await client.post("/contacts", { first_name: "Ada", last_name: "Lovelace" })
    const before = (await client.get("/events")).body.data.length
    const logged = await ok(mcp, "log_note", {
      entity_type: "contact",
      entity_id: contact.body.id.toUpperCase(),
      body: "Prefers mornings"
    })
    expect(logged.call).toBeNull()
    expect(logged.note).toMatchObject({
      entity_type: "contact",
      entity_id: contact.body.id,
      type: "note",
      body: "Prefers mornings",
      call_id: null
    })
    expect(logged.note.author_key_id).toMatch(/^[0-9a-f-]{36}$/)
    expect((await client.get("/events")).body.data).toHaveLength(before)
    const timeline = await ok(mcp, "recent_activity", { entity_type: "contact", entity_id: contact.body.id })
    expect(timeline.has_more).toBe(false)
    expect(timeline.items.map((item: any) => item.kind)).toEqual(["note", "created"])
    expect(timeline.items[0]).toEqual({
      at: logged.note.created_at,
      kind: "note",
      title: "Note",
      detail: "Prefers mornings",
      ref: { type: "note", id: logged.note.id }
    })
    expect(timeline.items[1]).toMatchObject({ kind: "created", title: "Contact created: Ada Lovelace" })
  })

  it("a call note logs the call, emitting call.ended with exactly the catalogue's keys", async () => {
    const { client, mcp } = await session()
    const contact = await client.post("/contacts", { first_name: "Ben", phone: "+420 777 000 111" })
    const before = (await client.get("/events")).body.data.length
    const logged = await ok(mcp, "log_note", {
      entity_type: "contact",
      entity_id: contact.body.id,
      type: "call",
      body: "Agreed on a demo next week",
      call: { direction: "outbound", duration_seconds: 340 }
    })
    expect(logged.call).toMatchObject({
      provider: "manual",
      direction: "outbound",
      status: "completed",
      duration_seconds: 340,
      to_number: "+420 777 000 111",
      from_number: "unknown",
      contact_id: contact.body.id
    })
    expect(logged.note.call_id).toBe(logged.call.id)
    const events = (await client.get("/events")).body.data.slice(before)
    expect(events.map((event: any) => event.event)).toEqual(["call.ended"])
    expect(Object.keys(events[0].data)).toEqual(CALL_KEYS)
    expect(events[0].data).toMatchObject({ id: logged.call.id, duration_seconds: 340, contact_id: contact.body.id })

    const missed = await ok(mcp, "log_note", {
      entity_type: "contact",
      entity_id: contact.body.id,
      type: "call",
      body: "No answer",
      call: { direction: "outbound", status: "no_answer" }
    })
    const next = (await client.get("/events")).body.data.slice(before + 1)
    expect(next.map((event: any) => event.event)).toEqual(["call.missed"])
    expect(Object.keys(next[0].data)).toEqual(CALL_KEYS)
    expect(next[0].data.id).toBe(missed.call.id)

    // A call logged by a note shows as that note, not twice.
    const timeline = await ok(mcp, "recent_activity", { entity_type: "contact", entity_id: contact.body.id })
    expect(timeline.items.map((item: any) => item.kind)).toEqual(["note", "note", "created"])
    expect(timeline.items[0]).toMatchObject({ title: "Call note", detail: "No answer" })
  })

  it("a call logged by hand on a contact shows as a call in its timeline", async () => {
    const { client, mcp, organisation } = await session()
    const contact = await client.post("/contacts", { first_name: "Cyril" })
    await pause()
    const call = await server().run(
      Effect.flatMap(Calls.Calls, (calls) =>
        calls.log(organisation, {
          provider: "twilio",
          direction: "inbound",
          status: "completed",
          duration_seconds: 65,
          from_number: "+1 555 0100",
          to_number: "+1 555 0199",
          contact_id: contact.body.id,
          started_at: new Date().toISOString()
        })
      )
    )
    const timeline = await ok(mcp, "recent_activity", { entity_type: "contact", entity_id: contact.body.id })
    expect(timeline.items[0]).toEqual({
      at: call.started_at,
      kind: "call",
      title: "Inbound call, completed, 1 min",
      detail: null,
      ref: { type: "call", id: call.id }
    })
  })

  it("a deal's timeline is newest first with stage moves, tasks created and completed, and notes", async () => {
    const { client, mcp, organisation } = await session()
    const [qualified, proposal, , won] = organisation.settings.pipelines[0].stages
    const deal = await client.post("/deals", { title: "Fleet renewal", value: 5000 })
    await pause()
    const task = await client.post("/tasks", {
      title: "Send the offer",
      entity_type: "deal",
      entity_id: deal.body.id
    })
    expect(task.status, task.text).toBe(201)
    await pause()
    expect((await client.post(`/deals/${deal.body.id}/status`, { status_id: proposal.id })).status).toBe(200)
    await pause()
    expect((await client.post(`/tasks/${task.body.id}/complete`, {})).status).toBe(200)
    await pause()
    await ok(mcp, "log_note", { entity_type: "deal", entity_id: deal.body.id, type: "meeting", body: "Signed" })
    await pause()
    expect((await client.post(`/deals/${deal.body.id}/status`, { status_id: won.id })).status).toBe(200)

    const timeline = await ok(mcp, "recent_activity", { entity_type: "deal", entity_id: deal.body.id })
    expect(timeline.items.map((item: any) => [item.kind, item.title])).toEqual([
      ["stage", `Entered stage ${won.name} (won)`],
      ["note", "Meeting note"],
      ["task_completed", "Task completed: Send the offer"],
      ["stage", `Entered stage ${proposal.name}`],
      ["task", "Task created: Send the offer"],
      ["stage", `Entered stage ${qualified.name}`],
      ["created", "Deal created: Fleet renewal"]
    ])
    expect(timeline.items[0].detail).toBe(`from ${proposal.name}`)
    const ats = timeline.items.map((item: any) => item.at)
    expect([...ats].sort().reverse()).toEqual(ats)

    const short = await ok(mcp, "recent_activity", { entity_type: "deal", entity_id: deal.body.id, limit: 2 })
    expect(short.items.map((item: any) => item.kind)).toEqual(["stage", "note"])
    expect(short.has_more).toBe(true)

    // The id `search` returns names the same record.
    expect(await ok(mcp, "recent_activity", { id: `deal:${deal.body.id}` })).toEqual(timeline)
    const neither = await refused(mcp, "recent_activity", {})
    expect(neither).toMatchObject({ error: "validation_failed", detail: [{ path: "entity_id" }] })
    const both = await refused(mcp, "recent_activity", {
      id: `deal:${deal.body.id}`,
      entity_type: "deal",
      entity_id: deal.body.id
    })
    expect(both).toMatchObject({ error: "validation_failed", detail: [{ path: "id" }] })
    const malformed = await refused(mcp, "recent_activity", { id: deal.body.id })
    expect(malformed).toMatchObject({ error: "validation_failed", detail: [{ path: "id" }] })
  })

  it("answers not_found for another organisation's record and refuses a note on it naming entity_id", async () => {
    const mine = await session()
    const theirs = await session()
    const contact = await theirs.client.post("/contacts", { first_name: "Secret" })
    const missing = await refused(mine.mcp, "recent_activity", { entity_type: "contact", entity_id: contact.body.id })
    expect(missing.error).toBe("not_found")
    const wrongType = await refused(mine.mcp, "recent_activity", { entity_type: "deal", entity_id: contact.body.id })
    expect(wrongType.error).toBe("not_found")
    const note = await refused(mine.mcp, "log_note", {
      entity_type: "contact",
      entity_id: contact.body.id,
      body: "sneaky"
    })
    expect(note.error).toBe("validation_failed")
    expect(note.detail.map((issue: any) => issue.path)).toEqual(["entity_id"])
    expect(
      (await ok(theirs.mcp, "recent_activity", { entity_type: "contact", entity_id: contact.body.id })).items
    ).toHaveLength(1)
  })

  it("refuses call details on a note that is not a call note, naming call", async () => {
    const { client, mcp } = await session()
    const company = await client.post("/companies", { name: "Acme" })
    const refusal = await refused(mcp, "log_note", {
      entity_type: "company",
      entity_id: company.body.id,
      type: "meeting",
      body: "x",
      call: { direction: "inbound" }
    })
    expect(refusal.error).toBe("validation_failed")
    expect(refusal.detail.map((issue: any) => issue.path)).toEqual(["call"])
  })

  it("refuses log_note to a read-only key with missing_scope:write and still reads the timeline", async () => {
    const { mcp, organisation } = await session(["read"])
    const contact = await server().run(
      Effect.flatMap(Contacts.Contacts, (contacts) =>
        contacts.create(organisation, { first_name: "Dora" }, { keyId: null })
      )
    )
    const refusal = await refused(mcp, "log_note", { entity_type: "contact", entity_id: contact.id, body: "x" })
    expect(refusal.error).toBe("missing_scope:write")
    const timeline = await ok(mcp, "recent_activity", { entity_type: "contact", entity_id: contact.id })
    expect(timeline.items.map((item: any) => item.kind)).toEqual(["created"])
  })
})
