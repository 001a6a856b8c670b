/**
 * The CRM tools of the assistant interface, called with the SDK's own client over Streamable HTTP
 * against the real server on every store: caps, the search/fetch pair, tenant isolation, the deal
 * and task lists (order and every filter), the writes and their events, and scopes.
 */
import type { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js"
import { afterEach, expect, it } from "vitest"
import { callTool, mcpClient } from "../support/mcp.js"
import type { Client } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"
import { onOneDay } from "../support/today.js"

const PEOPLE = [
  { name: "Alice Novak", email: "alice@example.com" },
  { name: "Bob Svoboda", email: "bob@example.com" }
]

const WRITE_TOOLS = [
  "create_contact",
  "create_contacts",
  "upsert_contact",
  "update_contact",
  "create_deal",
  "move_deal",
  "create_task",
  "create_tasks"
]
const READ_TOOLS = [
  "search",
  "fetch",
  "search_contacts",
  "get_contact",
  "get_company",
  "get_deal",
  "list_deals",
  "list_tasks"
]

/** One pipeline: Proposal carries a playbook, Contract requires fields, a won and a lost stage. */
const pipelineFixture = () => {
  const id = () => crypto.randomUUID()
  const ids = { sales: id(), lead: id(), proposal: id(), contract: id(), won: id(), lost: id() }
  const pipelines = [
    {
      id: ids.sales,
      name: "Sales",
      stages: [
        { id: ids.lead, name: "Lead", kind: "open" },
        {
          id: ids.proposal,
          name: "Proposal",
          kind: "open",
          playbook: [
            { title: "Send proposal", due_in_days: 3, priority: "high" },
            { title: "Call back", due_in_days: null }
          ]
        },
        { id: ids.contract, name: "Contract", kind: "open", required_fields: ["value", "custom.segment"] },
        { id: ids.won, name: "Won", kind: "won" },
        { id: ids.lost, name: "Lost", kind: "lost" }
      ]
    }
  ]
  return { ids, pipelines }
}

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

const created = async (client: Client, path: string, body: unknown) => {
  const response = await client.post(path, body)
  if (response.status !== 201) throw new Error(`${path}: ${response.status} ${response.text}`)
  return response.body
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The bounds of `today` and the days either side in a fixed-offset zone (Asia/Tokyo, UTC+9, no DST). */
const tokyoDay = (today: string) => {
  const start = Date.parse(`${today}T00:00:00.000+09:00`)
  const shift = (days: number) => new Date(start + days * 86_400_000).toISOString().slice(0, 10)
  return { start, end: start + 86_400_000, yesterday: shift(-1), tomorrow: shift(1) }
}

onEveryStore("MCP CRM tools", (server) => {
  const session = async (options: Parameters<ReturnType<typeof server>["tenant"]>[0] = {}) => {
    const tenant = await server().tenant(options)
    const mcp = await mcpClient(server(), tenant.key)
    opened.push(mcp)
    return { ...tenant, mcp }
  }

  /** An organisation with users, and a key owned by Alice (plus the REST client of that key). */
  const ownedSession = async (settings: Record<string, unknown> = {}) => {
    const org = await server().admin.post("/organisations", { name: "Owned", settings: { users: PEOPLE, ...settings } })
    if (org.status !== 201) throw new Error(org.text)
    const [alice, bob] = org.body.settings.users
    const key = await server().admin.post(`/organisations/${org.body.id}/keys`, {
      name: "alice's assistant",
      scopes: ["read", "write"],
      owner_id: alice.id
    })
    if (key.status !== 201) throw new Error(key.text)
    const mcp = await mcpClient(server(), key.body.key)
    opened.push(mcp)
    return { organisation: org.body, alice, bob, key: key.body.key, client: server().as(key.body.key), mcp }
  }

  it("lists every CRM tool with truthful hints, also to a read-only key", async () => {
    const { mcp } = await session({ scopes: ["read"] })
    const listed = (await mcp.listTools()).tools
    const byName = new Map(listed.map((entry) => [entry.name, entry]))
    for (const name of [...READ_TOOLS, ...WRITE_TOOLS]) expect(byName.has(name), name).toBe(true)
    for (const name of READ_TOOLS) {
      expect(byName.get(name)!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    }
    for (const name of ["create_contact", "create_contacts", "create_deal", "create_task", "create_tasks"]) {
      expect(byName.get(name)!.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false
      })
    }
    for (const name of ["update_contact", "upsert_contact", "move_deal"]) {
      expect(byName.get(name)!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true })
    }
    const createTask = byName.get("create_task")!.inputSchema as any
    expect(Object.keys(createTask.properties)).not.toContain("assignee_id")
    expect(createTask.required).toEqual(["title"])
    const createContact = byName.get("create_contact")!.inputSchema as any
    expect(Object.keys(createContact.properties).sort()).toEqual(
      ["company_id", "custom", "email", "first_name", "last_name", "phone", "source", "status"].sort()
    )
  })

  it("refuses every write tool to a read-only key with missing_scope:write", async () => {
    const { mcp } = await session({ scopes: ["read"] })
    const id = crypto.randomUUID()
    const attempts: Record<string, Record<string, unknown>> = {
      create_contact: { first_name: "Ada" },
      create_contacts: { items: [{ first_name: "Ada" }] },
      upsert_contact: { email: "ada@example.com" },
      update_contact: { id, first_name: "Ada" },
      create_deal: { title: "Deal" },
      move_deal: { id, status_id: crypto.randomUUID() },
      create_task: { title: "Task" },
      create_tasks: { items: [{ title: "Task" }] }
    }
    for (const name of WRITE_TOOLS) {
      const error = await refused(mcp, name, attempts[name]!)
      expect(error.error, name).toBe("missing_scope:write")
    }
  })

  it("upserts a contact by email and creates contacts and tasks in batches, all or nothing", async () => {
    const { mcp, alice, client } = await ownedSession()
    const first = await ok(mcp, "upsert_contact", { email: "Ada@Example.com", first_name: "Ada" })
    expect(first).toMatchObject({ outcome: "created", contact: { email: "ada@example.com", first_name: "Ada" } })
    const again = await ok(mcp, "upsert_contact", { email: "ada@example.com", first_name: "Ada" })
    expect(again).toEqual({ ...first, outcome: "unchanged" })
    const changed = await ok(mcp, "upsert_contact", { email: "ada@example.com", last_name: "Lovelace" })
    expect(changed).toMatchObject({ outcome: "updated", contact: { id: first.contact.id, first_name: "Ada" } })

    const contacts = await ok(mcp, "create_contacts", {
      items: [{ first_name: "Grace" }, { email: "bob@example.com", status: "customer" }]
    })
    expect(contacts.items.map((c: any) => c.first_name ?? c.email)).toEqual(["Grace", "bob@example.com"])
    const failed = await refused(mcp, "create_contacts", {
      items: [{ first_name: "Kept?" }, { email: "ADA@example.com" }]
    })
    expect(failed).toMatchObject({ error: "batch_failed", detail: { index: 1, error: "email_already_exists" } })
    const invalid = await refused(mcp, "create_contacts", { items: [{ first_name: "Ok" }, { email: "nope" }] })
    expect(invalid).toMatchObject({ error: "batch_failed", detail: { index: 1, error: "validation_failed" } })
    expect(invalid.detail.detail[0].path).toBe("email")
    expect((await client.get("/contacts?limit=200")).body.data).toHaveLength(3)

    const tasks = await ok(mcp, "create_tasks", {
      items: [{ title: "Call Ada", entity_type: "contact", entity_id: first.contact.id }, { title: "Write" }]
    })
    expect(tasks.items.map((t: any) => [t.title, t.assignee_id])).toEqual([
      ["Call Ada", alice.id],
      ["Write", alice.id]
    ])
    const half = await refused(mcp, "create_tasks", { items: [{ title: "x" }, { title: "y", entity_type: "deal" }] })
    expect(half).toMatchObject({ error: "batch_failed", detail: { index: 1, error: "validation_failed" } })
    expect((await client.get("/tasks?limit=200")).body.data).toHaveLength(2)
  })

  it("refuses an unknown argument of a read tool with validation_failed naming it", async () => {
    const { mcp } = await session({ scopes: ["read"] })
    const unknown = [{ path: "bogus", message: "unknown field", code: "unrecognized_key" }]
    for (const [name, args] of [
      ["search", { query: "ada", bogus: 1 }],
      ["search_contacts", { q: "ada", bogus: 1 }],
      ["list_deals", { bogus: 1 }],
      ["list_tasks", { bogus: 1 }],
      ["get_contact", { id: crypto.randomUUID(), bogus: 1 }]
    ] as const) {
      expect(await refused(mcp, name, args), name).toEqual({ error: "validation_failed", detail: unknown })
    }
    const listed = (await mcp.listTools()).tools.find((entry) => entry.name === "list_deals")!
    expect((listed.inputSchema as any).additionalProperties).toBe(false)
  })

  it("caps search at 20 and search_contacts at 25, clamping a larger limit", async () => {
    const { client, mcp } = await session()
    for (let index = 0; index < 30; index++) {
      await created(client, "/contacts", { first_name: `Capname${index}`, email: `cap${index}@example.com` })
    }
    const found = await ok(mcp, "search", { query: "capname", limit: 100 })
    expect(found.items).toHaveLength(20)
    expect(found.has_more).toBe(true)
    const contacts = await ok(mcp, "search_contacts", { q: "CAPNAME", limit: 100 })
    expect(contacts.items).toHaveLength(25)
    expect(contacts.has_more).toBe(true)
    const few = await ok(mcp, "search_contacts", { q: "capname", limit: 3 })
    expect(few.items).toHaveLength(3)
    const byEmail = await ok(mcp, "search_contacts", { email: "CAP7@example.com" })
    expect(byEmail.items.map((contact: any) => contact.first_name)).toEqual(["Capname7"])
    const byStatus = await ok(mcp, "search_contacts", { q: "capname", status: "customer" })
    expect(byStatus).toEqual({ items: [], has_more: false })
    expect((await refused(mcp, "search_contacts", { status: "vip" })).error).toBe("validation_failed")
  })

  it("searches contacts, companies and deals together and fetches each result", async () => {
    const { pipelines, ids } = pipelineFixture()
    const { client, mcp } = await session({ settings: { pipelines, default_currency: "CZK" } })
    const company = await created(client, "/companies", { name: "Zephyr Works", domain: "zephyr.example" })
    const contact = await created(client, "/contacts", {
      first_name: "Zoe",
      last_name: "Zephyr",
      email: "zoe@zephyr.example",
      company_id: company.id
    })
    const deal = await created(client, "/deals", {
      title: "Zephyr rollout",
      value: 1250.5,
      contact_id: contact.id,
      expected_close_date: "2030-01-31"
    })
    await created(client, "/contacts", { first_name: "Unrelated" })
    // `%` and `_` are literal characters, not wildcards.
    await created(client, "/deals", { title: "100% done_deal" })

    const found = await ok(mcp, "search", { query: "zephyr" })
    expect(found.has_more).toBe(false)
    expect(found.items.map((item: any) => item.id)).toEqual([
      `contact:${contact.id}`,
      `company:${company.id}`,
      `deal:${deal.id}`
    ])
    const [contactItem, companyItem, dealItem] = found.items
    expect(contactItem).toMatchObject({ type: "contact", title: "Zoe Zephyr", url: null })
    expect(contactItem.text).toContain("zoe@zephyr.example")
    expect(contactItem.text).toContain("Zephyr Works")
    expect(companyItem).toMatchObject({ type: "company", title: "Zephyr Works", url: null })
    expect(companyItem.text).toContain("zephyr.example")
    expect(dealItem).toMatchObject({ type: "deal", title: "Zephyr rollout", url: null })
    expect(dealItem.text).toContain("Lead")
    expect(dealItem.text).toContain("1250.5 CZK")

    expect((await ok(mcp, "search", { query: "%" })).items.map((item: any) => item.title)).toEqual(["100% done_deal"])
    expect((await ok(mcp, "search", { query: "e_d" })).items.map((item: any) => item.title)).toEqual(["100% done_deal"])
    expect((await ok(mcp, "search", { query: "0%_" })).items).toEqual([])
    expect((await ok(mcp, "search", { query: "nothing-like-this" })).items).toEqual([])
    expect((await refused(mcp, "search", { query: "" })).error).toBe("validation_failed")

    const fetchedContact = await ok(mcp, "fetch", { id: contactItem.id })
    expect(fetchedContact).toMatchObject({ id: contactItem.id, type: "contact", title: "Zoe Zephyr" })
    expect(fetchedContact.metadata).toEqual((await client.get(`/contacts/${contact.id}`)).body)
    expect(fetchedContact.text).toContain("email: zoe@zephyr.example")
    expect(fetchedContact.text).toContain("company: Zephyr Works")
    const fetchedCompany = await ok(mcp, "fetch", { id: companyItem.id })
    expect(fetchedCompany.metadata).toEqual(company)
    expect(fetchedCompany.text).toContain("domain: zephyr.example")
    const fetchedDeal = await ok(mcp, "fetch", { id: `DEAL:${deal.id.toUpperCase()}` })
    expect(fetchedDeal).toMatchObject({ id: `deal:${deal.id}`, type: "deal", title: "Zephyr rollout", metadata: deal })
    expect(fetchedDeal.text).toContain("stage: Lead")
    expect(fetchedDeal.text).toContain(`status_id: ${ids.lead}`)

    for (const id of ["contact:nope", deal.id, `invoice:${deal.id}`, ""]) {
      const error = await refused(mcp, "fetch", { id })
      expect(error.error, id).toBe("validation_failed")
      expect(error.detail[0].path).toBe("id")
    }
    expect((await refused(mcp, "fetch", { id: `company:${contact.id}` })).error).toBe("not_found")
  })

  it("keeps every read tool to the key's own organisation (not_found for another's ids)", async () => {
    const other = await session()
    const contact = await created(other.client, "/contacts", { first_name: "Hidden", email: "hidden@example.com" })
    const company = await created(other.client, "/companies", { name: "Hidden Co" })
    const deal = await created(other.client, "/deals", { title: "Hidden deal", contact_id: contact.id })

    const { mcp } = await session()
    for (const id of [`contact:${contact.id}`, `company:${company.id}`, `deal:${deal.id}`]) {
      expect((await refused(mcp, "fetch", { id })).error, id).toBe("not_found")
    }
    expect((await refused(mcp, "get_contact", { id: contact.id })).error).toBe("not_found")
    expect((await refused(mcp, "get_company", { id: company.id })).error).toBe("not_found")
    expect((await refused(mcp, "get_deal", { id: deal.id })).error).toBe("not_found")
    expect((await ok(mcp, "search", { query: "hidden" })).items).toEqual([])
    expect((await ok(mcp, "search_contacts", { q: "hidden" })).items).toEqual([])
    expect((await ok(mcp, "list_deals", { contact_id: contact.id })).items).toEqual([])
    expect((await refused(mcp, "update_contact", { id: contact.id, first_name: "Mine" })).error).toBe("not_found")
    expect((await refused(mcp, "move_deal", { id: deal.id, status_id: crypto.randomUUID() })).error).toBe("not_found")
    const linked = await refused(mcp, "create_deal", { title: "Stolen", contact_id: contact.id })
    expect(linked.error).toBe("validation_failed")
    expect(linked.detail[0].path).toBe("contact_id")
  })

  it("gets a contact, a company and a deal with the stages of its pipeline", async () => {
    const { pipelines, ids } = pipelineFixture()
    const { client, mcp } = await session({ settings: { pipelines } })
    const company = await created(client, "/companies", { name: "Acme", city: "Brno", country: "CZ" })
    const contact = await created(client, "/contacts", { first_name: "Ada", company_id: company.id })
    const deal = await created(client, "/deals", { title: "Acme deal", company_id: company.id })
    expect(await ok(mcp, "get_contact", { id: contact.id.toUpperCase() })).toEqual(contact)
    expect(await ok(mcp, "get_company", { id: company.id })).toEqual(company)
    const withStages = await ok(mcp, "get_deal", { id: deal.id })
    const { pipeline, stages, ...record } = withStages
    expect(record).toEqual(deal)
    expect(stages).toEqual(pipeline.stages)
    expect(pipeline.id).toBe(ids.sales)
    expect(pipeline.name).toBe("Sales")
    expect(pipeline.stages.map((stage: any) => [stage.name, stage.kind])).toEqual([
      ["Lead", "open"],
      ["Proposal", "open"],
      ["Contract", "open"],
      ["Won", "won"],
      ["Lost", "lost"]
    ])
    expect(pipeline.stages[2].required_fields).toEqual(["value", "custom.segment"])
    expect(pipeline.stages[1].playbook).toHaveLength(2)
    expect((await refused(mcp, "get_contact", { id: crypto.randomUUID() })).error).toBe("not_found")
    expect((await refused(mcp, "get_contact", { id: "nope" })).error).toBe("validation_failed")
  })

  it("lists deals most recently changed first, with each filter", () =>
    onOneDay("Asia/Tokyo", async (today) => {
      const { pipelines, ids } = pipelineFixture()
      const { client, mcp, alice, bob } = await ownedSession({ pipelines, timezone: "Asia/Tokyo" })
      const { yesterday, tomorrow } = tokyoDay(today)
      const ada = await created(client, "/contacts", { first_name: "Ada" })
      const acme = await created(client, "/companies", { name: "Acme" })
      const first = await created(client, "/deals", { title: "First", owner_id: alice.id, contact_id: ada.id })
      await pause(5)
      await created(client, "/deals", {
        title: "Late",
        owner_id: bob.id,
        company_id: acme.id,
        expected_close_date: yesterday
      })
      await pause(5)
      await created(client, "/deals", { title: "Due today", expected_close_date: today })
      await pause(5)
      await created(client, "/deals", { title: "Future", expected_close_date: tomorrow })
      await pause(5)
      const wonLate = await created(client, "/deals", { title: "Won late", expected_close_date: yesterday })
      await pause(5)
      expect((await client.post(`/deals/${wonLate.id}/status`, { status_id: ids.won })).status).toBe(200)
      await pause(5)
      // Changing the first deal makes it the most recently changed one.
      expect((await client.patch(`/deals/${first.id}`, { value: 10 })).status).toBe(200)

      const titles = async (args: Record<string, unknown>) =>
        (await ok(mcp, "list_deals", args)).items.map((deal: any) => deal.title)
      expect(await titles({})).toEqual(["First", "Won late", "Future", "Due today", "Late"])
      expect(await titles({ stage_kind: "won" })).toEqual(["Won late"])
      expect(await titles({ stage_kind: "open" })).toEqual(["First", "Future", "Due today", "Late"])
      expect(await titles({ contact_id: ada.id.toUpperCase() })).toEqual(["First"])
      expect(await titles({ company_id: acme.id })).toEqual(["Late"])
      expect(await titles({ pipeline_id: ids.sales, limit: 2 })).toEqual(["First", "Won late"])
      expect(await titles({ pipeline_id: crypto.randomUUID() })).toEqual([])
      expect(await titles({ mine: true })).toEqual(["First"])
      expect(await titles({ mine: false })).toHaveLength(5)
      expect(await titles({ overdue_close: true })).toEqual(["Late"])
      expect(await titles({ overdue_close: true, stage_kind: "won" })).toEqual([])
      expect(await titles({ overdue_close: true, mine: true })).toEqual([])
      const page = await ok(mcp, "list_deals", { limit: 2 })
      expect(page.has_more).toBe(true)
      expect(page.items).toHaveLength(2)
      expect((await ok(mcp, "list_deals", { limit: 500 })).items).toHaveLength(5)
      expect((await refused(mcp, "list_deals", { stage_kind: "pending" })).error).toBe("validation_failed")
    }))

  it("refuses mine on a key without an owner, naming mine", async () => {
    const { mcp } = await session()
    for (const name of ["list_deals", "list_tasks"]) {
      const error = await refused(mcp, name, { mine: true })
      expect(error.error).toBe("validation_failed")
      expect(error.detail[0].path).toBe("mine")
      expect(error.detail[0].message).toContain("no owner")
    }
  })

  it("lists open tasks soonest due first, with due, mine, entity and priority filters", () =>
    onOneDay("Asia/Tokyo", async (today) => {
      const { client, mcp, alice, bob } = await ownedSession({ timezone: "Asia/Tokyo" })
      const { start, end } = tokyoDay(today)
      const at = (ms: number) => new Date(ms).toISOString()
      const deal = await created(client, "/deals", { title: "Task deal" })
      const ada = await created(client, "/contacts", { first_name: "Ada" })
      const task = (title: string, extra: Record<string, unknown>) => created(client, "/tasks", { title, ...extra })
      await task("No date", { assignee_id: alice.id })
      await task("Tomorrow", { due_at: at(end + 60_000), priority: "high", entity_type: "deal", entity_id: deal.id })
      await task("Late evening", { due_at: at(end - 60_000), assignee_id: alice.id })
      await task("Early today", { due_at: at(start + 60_000), assignee_id: bob.id })
      await task("Yesterday", {
        due_at: at(start - 60_000),
        assignee_id: alice.id,
        entity_type: "contact",
        entity_id: ada.id
      })
      const done = await task("Done yesterday", { due_at: at(start - 120_000) })
      expect((await client.post(`/tasks/${done.id}/complete`)).status).toBe(200)

      const titles = async (args: Record<string, unknown>) =>
        (await ok(mcp, "list_tasks", args)).items.map((entry: any) => entry.title)
      expect(await titles({})).toEqual(["Yesterday", "Early today", "Late evening", "Tomorrow", "No date"])
      expect(await titles({ due: "today" })).toEqual(["Early today", "Late evening"])
      const overdue = await titles({ due: "overdue" })
      expect(overdue[0]).toBe("Yesterday")
      expect(overdue).not.toContain("Tomorrow")
      expect(overdue).not.toContain("No date")
      expect(overdue).not.toContain("Done yesterday")
      expect(await titles({ mine: true })).toEqual(["Yesterday", "Late evening", "No date"])
      expect(await titles({ mine: true, due: "today" })).toEqual(["Late evening"])
      expect(await titles({ entity_type: "deal" })).toEqual(["Tomorrow"])
      expect(await titles({ entity_type: "contact", entity_id: ada.id })).toEqual(["Yesterday"])
      expect(await titles({ entity_type: "company" })).toEqual([])
      expect(await titles({ priority: "high" })).toEqual(["Tomorrow"])
      const page = await ok(mcp, "list_tasks", { limit: 2 })
      expect(page).toMatchObject({ has_more: true })
      expect(page.items.map((entry: any) => entry.title)).toEqual(["Yesterday", "Early today"])
      expect((await refused(mcp, "list_tasks", { due: "soon" })).error).toBe("validation_failed")
    }))

  it("creates a contact, refuses a duplicate email and updates only the passed fields", async () => {
    const { client, mcp } = await session()
    const contact = await ok(mcp, "create_contact", {
      first_name: "Ada",
      last_name: "Lovelace",
      email: "Ada@Example.com",
      phone: "+420 123",
      custom: { tier: "gold" }
    })
    expect(contact).toMatchObject({
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
      phone: "+420 123",
      status: "lead",
      custom: { tier: "gold" }
    })
    expect((await client.get(`/contacts/${contact.id}`)).body).toEqual(contact)

    const duplicate = await refused(mcp, "create_contact", { first_name: "Other", email: "ADA@example.com" })
    expect(duplicate.error).toBe("email_already_exists")
    expect((await ok(mcp, "search_contacts", { email: "ada@example.com" })).items).toHaveLength(1)

    const empty = await refused(mcp, "create_contact", { phone: "+420 999" })
    expect(empty.error).toBe("validation_failed")
    expect(empty.detail[0].path).toBe("first_name")
    const unknown = await refused(mcp, "create_contact", { first_name: "X", nickname: "x" })
    expect(unknown.error).toBe("validation_failed")
    expect(unknown.detail[0].path).toBe("nickname")

    const updated = await ok(mcp, "update_contact", { id: contact.id, status: "customer", phone: null })
    expect(updated).toEqual({
      ...contact,
      status: "customer",
      phone: null,
      updated_at: updated.updated_at
    })
    expect((await refused(mcp, "update_contact", { id: contact.id })).error).toBe("no_fields_to_update")
    const other = await ok(mcp, "create_contact", { email: "other@example.com" })
    expect((await refused(mcp, "update_contact", { id: other.id, email: "ada@example.com" })).error).toBe(
      "email_already_exists"
    )
    expect((await refused(mcp, "update_contact", { id: crypto.randomUUID(), first_name: "X" })).error).toBe("not_found")

    const events = (await client.get("/events?since=0")).body.data.map((event: any) => event.event)
    expect(events).toEqual(["contact.created", "contact.updated", "contact.created"])
  })

  it("creates a deal and moves it with the status endpoint's effects and the playbook's tasks", async () => {
    const { pipelines, ids } = pipelineFixture()
    const { client, mcp, alice } = await ownedSession({ pipelines, default_currency: "CZK" })
    const contact = await created(client, "/contacts", { first_name: "Ada" })
    const deal = await ok(mcp, "create_deal", { title: "Big one", contact_id: contact.id, owner_id: alice.id })
    expect(deal).toMatchObject({
      title: "Big one",
      currency: "CZK",
      pipeline_id: ids.sales,
      status_id: ids.lead,
      status_kind: "open",
      contact_id: contact.id
    })
    expect((await refused(mcp, "create_deal", { value: 5 })).error).toBe("validation_failed")

    const moved = await ok(mcp, "move_deal", { id: deal.id, status_id: ids.proposal })
    expect(moved.deal).toMatchObject({ id: deal.id, status_id: ids.proposal, status_kind: "open" })
    expect(moved.playbook_tasks.map((task: any) => task.title).sort()).toEqual(["Call back", "Send proposal"])
    for (const task of moved.playbook_tasks) {
      expect(task).toMatchObject({ type: "playbook", entity_type: "deal", entity_id: deal.id, assignee_id: alice.id })
    }
    // The same stage again changes nothing and creates no tasks.
    const again = await ok(mcp, "move_deal", { id: deal.id, stage_name: "proposal" })
    expect(again).toEqual({ deal: moved.deal, playbook_tasks: [] })
    expect((await client.get(`/tasks?entity_id=${deal.id}`)).body.data).toHaveLength(2)

    const blocked = await refused(mcp, "move_deal", { id: deal.id, status_id: ids.contract })
    expect(blocked.error).toBe("validation_failed")
    expect(blocked.detail.map((issue: any) => issue.path).sort()).toEqual(["custom.segment", "value"])
    expect((await refused(mcp, "move_deal", { id: deal.id, stage_name: "Nowhere" })).detail[0].path).toBe("stage_name")
    expect((await refused(mcp, "move_deal", { id: deal.id })).error).toBe("validation_failed")
    expect((await refused(mcp, "move_deal", { id: deal.id, status_id: ids.won, stage_name: "Won" })).error).toBe(
      "validation_failed"
    )

    // A lost stage needs no reason.
    const lost = await ok(mcp, "move_deal", { id: deal.id, stage_name: "Lost" })
    expect(lost.deal).toMatchObject({ status_id: ids.lost, status_kind: "lost", lost_reason: null })
    expect(lost.deal.closed_at).not.toBeNull()
    expect(lost.playbook_tasks).toEqual([])

    const won = await ok(mcp, "move_deal", { id: deal.id, status_id: ids.won, lost_reason: "n/a" })
    expect(won.deal).toMatchObject({ status_kind: "won" })

    const events = (await client.get("/events?since=0")).body.data
    const names = events.map((event: any) => event.event)
    expect(names.filter((name: string) => name.startsWith("deal."))).toEqual([
      "deal.created",
      "deal.status_changed",
      "deal.status_changed",
      "deal.lost",
      "deal.status_changed",
      "deal.won"
    ])
    expect(names.filter((name: string) => name === "task.created")).toHaveLength(2)
    const lostEvent = events.find((event: any) => event.event === "deal.lost")
    expect(lostEvent.data).toEqual({ id: deal.id, title: "Big one", contact_id: contact.id, lost_reason: null })
    const history = (await client.get(`/deals/${deal.id}/stage-history`)).body.data
    expect(history.map((visit: any) => visit.status_id)).toEqual([ids.lead, ids.proposal, ids.lost, ids.won])
  })

  it("creates a task assigned to the key's owner, or to nobody when the key has none", async () => {
    const owned = await ownedSession()
    const deal = await created(owned.client, "/deals", { title: "Deal" })
    const task = await ok(owned.mcp, "create_task", {
      title: "Call Ada",
      type: "call",
      priority: "high",
      due_at: "2030-01-01T10:00:00+02:00",
      entity_type: "deal",
      entity_id: deal.id
    })
    expect(task).toMatchObject({
      title: "Call Ada",
      type: "call",
      priority: "high",
      due_at: "2030-01-01T08:00:00.000Z",
      done: false,
      assignee_id: owned.alice.id,
      entity_type: "deal",
      entity_id: deal.id
    })
    const events = (await owned.client.get("/events?event=task.created")).body.data
    expect(events.map((event: any) => event.data.id)).toEqual([task.id])

    const assignee = await refused(owned.mcp, "create_task", { title: "X", assignee_id: owned.bob.id })
    expect(assignee.error).toBe("validation_failed")
    expect(assignee.detail[0].path).toBe("assignee_id")
    const half = await refused(owned.mcp, "create_task", { title: "X", entity_type: "deal" })
    expect(half.error).toBe("validation_failed")
    expect(half.detail[0].path).toBe("entity_id")
    const missing = await refused(owned.mcp, "create_task", {
      title: "X",
      entity_type: "contact",
      entity_id: crypto.randomUUID()
    })
    expect(missing.detail[0].path).toBe("entity_id")

    const { mcp } = await session()
    expect(await ok(mcp, "create_task", { title: "Nobody's" })).toMatchObject({ assignee_id: null, type: "todo" })
  })
})
