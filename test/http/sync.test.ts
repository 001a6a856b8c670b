/**
 * Syncing without a cap (issue 16): every list takes `updated_since`, `order=updated_at` (oldest
 * change first, ties by id) and an opaque keyset `cursor` (`next_cursor` beside `has_more`), and the
 * lists of records DELETE archives take `include_archived=true`, which shows archived rows with
 * their `archived_at`. Archiving stamps `updated_at` (a sync client must see it) and emits nothing.
 */
import { Access, Contacts, Ids, Organisation, Settings, type Wire } from "@crm/core"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { newestFirst } from "../support/answers.js"
import { clockAt } from "../support/clock.js"
import type { Client, TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Walk {
  readonly rows: Array<any>
  readonly pages: Array<any>
}

/** Every page of `path` (a list with its query, without limit or cursor), following next_cursor. */
const walk = async (client: Client, path: string, limit: number, between?: (page: number) => Promise<void>) => {
  const rows: Array<any> = []
  const pages: Array<any> = []
  let cursor: string | null = null
  for (let n = 0; n < 50; n++) {
    const separator = path.includes("?") ? "&" : "?"
    const response = await client.get(
      `${path}${separator}limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
    )
    expect(response.status, response.text).toBe(200)
    pages.push(response.body)
    rows.push(...response.body.data)
    cursor = response.body.next_cursor
    if (!response.body.has_more) break
    await between?.(n)
  }
  return { rows, pages } satisfies Walk
}

/** (updated_at, id) strictly increasing: the sync order, with no row twice at the same version. */
const expectSyncOrder = (rows: ReadonlyArray<any>) => {
  for (let n = 1; n < rows.length; n++) {
    const [before, after] = [rows[n - 1], rows[n]]
    const ordered =
      before.updated_at < after.updated_at || (before.updated_at === after.updated_at && before.id < after.id)
    expect(ordered, `${before.updated_at} ${before.id} then ${after.updated_at} ${after.id}`).toBe(true)
  }
}

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id)

/** Contacts all created at the same instant (through the kernel, under a stopped clock). */
const createdAtOnce = (server: TestServer, organisationId: string, count: number, ms: number) =>
  server.run(
    Effect.gen(function* () {
      const organisation = yield* (yield* Access.Access).getOrganisation(
        Ids.brand(Organisation.OrganisationId, organisationId)
      )
      const contacts = yield* Contacts.Contacts
      return yield* Effect.forEach(
        Array.from({ length: count }, (_, n) => n),
        (n) => contacts.create(organisation, { first_name: `Tied ${n}` }, { keyId: null })
      )
    }).pipe(Effect.withClock(clockAt(ms)))
  )

const SCOPES = ["read", "write", "quotes:write", "invoices:write"]
const SETTINGS = {
  default_currency: "EUR",
  record_types: [{ key: "project", name: "Project", fields: [{ key: "budget", type: "number" }] }]
}
const LINE = { name: "Work", quantity: 1, unit_price: 100, vat_rate: 21 }

interface Resource {
  readonly plural: string
  readonly create: (n: number) => Record<string, unknown>
  readonly patch: Record<string, unknown>
  /** Whether DELETE archives it, so that its list takes include_archived. */
  readonly archivable: boolean
}

const RESOURCES: ReadonlyArray<Resource> = [
  { plural: "contacts", create: (n) => ({ first_name: `C${n}` }), patch: { first_name: "Changed" }, archivable: true },
  { plural: "companies", create: (n) => ({ name: `Co${n}` }), patch: { name: "Changed" }, archivable: true },
  { plural: "deals", create: (n) => ({ title: `D${n}` }), patch: { title: "Changed" }, archivable: true },
  { plural: "tasks", create: (n) => ({ title: `T${n}` }), patch: { title: "Changed" }, archivable: true },
  {
    plural: "products",
    create: (n) => ({ sku: `SKU-${n}`, name: `P${n}`, unit_price: 10, vat_rate: 21 }),
    patch: { name: "Changed" },
    archivable: false
  },
  {
    plural: "records",
    create: (n) => ({ type: "project", title: `R${n}`, custom: {} }),
    patch: { title: "Changed" },
    archivable: false
  },
  { plural: "quotes", create: () => ({ items: [LINE] }), patch: { note: "Changed" }, archivable: false },
  { plural: "invoices", create: () => ({ items: [LINE] }), patch: { note: "Changed" }, archivable: false },
  {
    plural: "orders",
    create: (n) => ({ external_id: `ext-${n}`, buyer: { email: `buyer${n}@example.com` }, items: [LINE] }),
    patch: { payment_status: "pending" },
    archivable: false
  }
]

onEveryStore("sync: updated_since, order=updated_at, cursor, include_archived", (server) => {
  it("walks every record oldest change first by cursor; a record updated between pages moves to the end", async () => {
    const { client } = await server().tenant()
    const created: Array<any> = []
    for (let n = 0; n < 7; n++) created.push((await client.post("/contacts", { first_name: `C${n}` })).body)
    const seenFirst = created[0]
    const notYetSeen = created[6]
    const { rows, pages } = await walk(client, "/contacts?order=updated_at", 3, async (page) => {
      if (page !== 0) return
      // Later than every write so far: the updated records now sort after all of them.
      await pause(5)
      expect((await client.patch(`/contacts/${seenFirst.id}`, { first_name: "Again" })).status).toBe(200)
      expect((await client.patch(`/contacts/${notYetSeen.id}`, { first_name: "Moved" })).status).toBe(200)
    })
    expectSyncOrder(rows)
    expect(new Set(ids(rows))).toEqual(new Set(ids(created)))
    // Seen before its change and again after it (the change is news); every other record once.
    expect(ids(rows).filter((id) => id === seenFirst.id)).toHaveLength(2)
    expect(rows.filter((row) => row.id !== seenFirst.id)).toHaveLength(6)
    expect(rows.slice(-2).map((row) => row.first_name)).toEqual(["Again", "Moved"])
    expect(rows.find((row) => row.id === notYetSeen.id).first_name).toBe("Moved")
    // The envelope: next_cursor on every page that has more, null on the last.
    for (const page of pages.slice(0, -1)) {
      expect(page).toMatchObject({ has_more: true, limit: 3, offset: 0 })
      expect(typeof page.next_cursor).toBe("string")
    }
    expect(pages.at(-1)).toMatchObject({ has_more: false, next_cursor: null })
  })

  it("breaks ties of the same instant by id: ascending in order=updated_at, descending in the default order", async () => {
    const { organisation, client } = await server().tenant()
    const tied = await createdAtOnce(server(), organisation.id, 5, Date.parse("2026-03-01T10:00:00.000Z"))
    expect(new Set(tied.map((contact) => contact.updated_at)).size).toBe(1)
    const ascending = [...ids(tied)].sort()
    for (const limit of [1, 2, 3]) {
      const synced = await walk(client, "/contacts?order=updated_at", limit)
      expect(ids(synced.rows)).toEqual(ascending)
      const newest = await walk(client, "/contacts", limit)
      expect(ids(newest.rows)).toEqual([...ascending].reverse())
    }
  })

  it("updated_since keeps records changed at or after it, alone or with order and cursor", async () => {
    const { client } = await server().tenant()
    const old = (await client.post("/contacts", { first_name: "Old" })).body
    const untouched = (await client.post("/contacts", { first_name: "Untouched" })).body
    await pause(5)
    const since = new Date().toISOString()
    await pause(5)
    const fresh = (await client.post("/contacts", { first_name: "Fresh" })).body
    const changed = (await client.patch(`/contacts/${old.id}`, { first_name: "Changed" })).body
    expect(changed.updated_at >= since).toBe(true)

    const listed = await client.get(`/contacts?updated_since=${encodeURIComponent(since)}`)
    expect(ids(listed.body.data)).toEqual([fresh.id, old.id])
    const synced = await walk(client, `/contacts?order=updated_at&updated_since=${encodeURIComponent(since)}`, 1)
    expect(ids(synced.rows)).toEqual([fresh.id, old.id])
    expect(ids(synced.rows)).not.toContain(untouched.id)
    // Inclusive, and any offset is read as the instant it names.
    const exact = await client.get(`/contacts?order=updated_at&updated_since=${encodeURIComponent(changed.updated_at)}`)
    expect(ids(exact.body.data)).toEqual([old.id])
    // The same instants written with another offset.
    const at = (ms: number) => new Date(ms + 3_600_000).toISOString().replace("Z", "+01:00")
    const changedAt = Date.parse(changed.updated_at)
    const sameInstant = await client.get(`/contacts?updated_since=${encodeURIComponent(at(changedAt))}`)
    expect(ids(sameInstant.body.data)).toEqual([old.id])
    const justAfter = await client.get(`/contacts?updated_since=${encodeURIComponent(at(changedAt + 1))}`)
    expect(ids(justAfter.body.data)).toEqual([])
    expect((await client.get("/contacts?updated_since=yesterday")).status).toBe(422)
  })

  it("include_archived=true lists archived records with archived_at; archiving stamps updated_at and emits nothing", async () => {
    const { client } = await server().tenant()
    const kept = (await client.post("/contacts", { first_name: "Kept" })).body
    const gone = (await client.post("/contacts", { first_name: "Gone" })).body
    await pause(5)
    const before = new Date().toISOString()
    const eventsBefore = (await client.get("/events?since=0")).body.data.length
    expect((await client.delete(`/contacts/${gone.id}`)).status).toBe(204)
    expect((await client.get("/events?since=0")).body.data).toHaveLength(eventsBefore)

    const plain = await client.get("/contacts")
    expect(ids(plain.body.data)).toEqual([kept.id])
    expect(plain.body.data[0]).not.toHaveProperty("archived_at")
    expect(ids((await client.get("/contacts?order=updated_at")).body.data)).toEqual([kept.id])
    expect(ids((await client.get("/contacts?include_archived=false")).body.data)).toEqual([kept.id])

    const all = await client.get("/contacts?include_archived=true")
    expect(ids(all.body.data)).toEqual(newestFirst(kept, gone))
    const archived = all.body.data.find((contact: any) => contact.id === gone.id)
    const live = all.body.data.find((contact: any) => contact.id === kept.id)
    expect(live.archived_at).toBeNull()
    expect(archived.archived_at >= before).toBe(true)
    expect(archived.updated_at).toBe(archived.archived_at)
    expect(archived.first_name).toBe("Gone")

    // What a sync client asks after its last sync: the archived record is the news.
    const news = await client.get(
      `/contacts?order=updated_at&include_archived=true&updated_since=${encodeURIComponent(before)}`
    )
    expect(news.body.data).toEqual([archived])
    const walked = await walk(client, "/contacts?order=updated_at&include_archived=true", 1)
    expect(ids(walked.rows)).toEqual([kept.id, gone.id])
    // Still gone everywhere else.
    expect((await client.get(`/contacts/${gone.id}`)).status).toBe(404)
    expect((await client.get("/contacts?include_archived=yes")).status).toBe(422)
  })

  it("refuses a cursor it did not give out, or one made for another order, and a cursor with an offset (422)", async () => {
    const { client } = await server().tenant()
    for (let n = 0; n < 3; n++) await client.post("/contacts", { first_name: `C${n}` })
    const byChange = (await client.get("/contacts?order=updated_at&limit=1")).body.next_cursor
    const byCreation = (await client.get("/contacts?limit=1")).body.next_cursor
    expect(typeof byChange).toBe("string")
    expect(typeof byCreation).toBe("string")
    expect(byChange).not.toBe(byCreation)

    const refusedAt = async (query: string, path: string) => {
      const response = await client.get(`/contacts?${query}`)
      expect(response.status, query).toBe(422)
      expect(response.body.error).toBe("validation_failed")
      expect(
        response.body.detail.map((issue: any) => issue.path),
        query
      ).toContain(path)
    }
    await refusedAt("cursor=not*a*cursor", "cursor")
    await refusedAt(`cursor=${Buffer.from("u|yesterday|nobody").toString("base64url")}`, "cursor")
    await refusedAt(
      `cursor=${Buffer.from(`x|2026-01-01T00:00:00.000Z|${crypto.randomUUID()}`).toString("base64url")}`,
      "cursor"
    )
    await refusedAt(`order=updated_at&cursor=${byCreation}`, "cursor")
    await refusedAt(`cursor=${byChange}`, "cursor")
    await refusedAt(`order=updated_at&cursor=${byChange}&offset=1`, "offset")
    await refusedAt("order=created_at", "order")
    // The same cursors with their own order are fine, and offset paging is as it was.
    expect((await client.get(`/contacts?order=updated_at&cursor=${byChange}`)).body.data).toHaveLength(2)
    expect((await client.get(`/contacts?cursor=${byCreation}&offset=0`)).body.data).toHaveLength(2)
    const second = await client.get("/contacts?limit=1&offset=1")
    expect(second.body).toMatchObject({ limit: 1, offset: 1, has_more: true })
    expect(second.body.data).toHaveLength(1)
    expect((await client.get("/contacts?limit=1&offset=2")).body).toMatchObject({ has_more: false, next_cursor: null })
  })

  describe.each(RESOURCES)("GET /$plural", (resource) => {
    it("walks by cursor in order=updated_at, takes updated_since, and include_archived where DELETE archives", async () => {
      const { client } = await server().tenant({ scopes: SCOPES, settings: SETTINGS })
      const created: Array<any> = []
      for (let n = 0; n < 3; n++) {
        const response = await client.post(`/${resource.plural}`, resource.create(n))
        expect(response.status, response.text).toBe(201)
        created.push(response.body)
        // Records changed in the same millisecond are ordered by id, not by when they were made.
        await pause(2)
      }
      await pause(5)
      const since = new Date().toISOString()
      await pause(5)
      const patched = await client.patch(`/${resource.plural}/${created[0].id}`, resource.patch)
      expect(patched.status, patched.text).toBe(200)

      const synced = await walk(client, `/${resource.plural}?order=updated_at`, 2)
      expect(ids(synced.rows)).toEqual([created[1].id, created[2].id, created[0].id])
      expect(synced.pages).toHaveLength(2)
      expect(synced.pages.at(-1).next_cursor).toBeNull()
      const newest = await walk(client, `/${resource.plural}`, 2)
      expect(ids(newest.rows)).toEqual(ids(created).reverse())
      const recent = await client.get(`/${resource.plural}?updated_since=${encodeURIComponent(since)}`)
      expect(ids(recent.body.data)).toEqual([created[0].id])
      expect((await client.get(`/${resource.plural}?cursor=bogus`)).status).toBe(422)

      if (resource.archivable) {
        expect((await client.delete(`/${resource.plural}/${created[1].id}`)).status).toBe(204)
        expect(ids((await client.get(`/${resource.plural}?order=updated_at`)).body.data)).toEqual([
          created[2].id,
          created[0].id
        ])
        const all = (await client.get(`/${resource.plural}?order=updated_at&include_archived=true`)).body.data
        expect(ids(all)).toEqual([created[2].id, created[0].id, created[1].id])
        expect(all.map((row: any) => row.archived_at === null)).toEqual([true, true, false])
      }
    })
  })

  it("the other lists take the sync fields too (returns, tickets, purchase orders)", async () => {
    const { client } = await server().tenant({ scopes: SCOPES })
    for (const plural of ["returns", "tickets", "purchase-orders"]) {
      const response = await client.get(`/${plural}?order=updated_at&updated_since=2026-01-01T00:00:00Z&limit=5`)
      expect(response.status, `${plural} ${response.text}`).toBe(200)
      expect(response.body).toMatchObject({ data: [], has_more: false, next_cursor: null })
      expect((await client.get(`/${plural}?cursor=bogus`)).status, plural).toBe(422)
    }
  })

  it("a cursor walk yields exactly the live records in (updated_at, id) order, whatever was done and however paged", async () => {
    const base = Date.parse("2026-05-01T08:00:00.000Z")
    type Command =
      | { readonly kind: "create" }
      | { readonly kind: "update"; readonly pick: number }
      | { readonly kind: "archive"; readonly pick: number }
      | { readonly kind: "tick"; readonly by: number }
    const command: fc.Arbitrary<Command> = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: "create" as const }) },
      { weight: 3, arbitrary: fc.nat(50).map((pick) => ({ kind: "update" as const, pick })) },
      { weight: 1, arbitrary: fc.nat(50).map((pick) => ({ kind: "archive" as const, pick })) },
      // Often no time passes between writes, so ties of the same instant are common.
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 2 }).map((by) => ({ kind: "tick" as const, by })) }
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 7 }),
        async (commands, limit) => {
          const { live, archived, listed } = await server().run(
            Effect.gen(function* () {
              // A fresh organisation per run: the model starts empty.
              const access = yield* Access.Access
              const own = yield* access.createOrganisation(Settings.OrganisationCreate.parse({ name: "sync" }))
              const contacts = yield* Contacts.Contacts
              const model = new Map<Contacts.ContactId, { updated_at: string; archived: boolean }>()
              let now = base
              for (const step of commands) {
                const at = Effect.withClock(clockAt(now))
                const ids = [...model.keys()]
                if (step.kind === "tick") now += step.by
                else if (step.kind === "create") {
                  const contact = yield* at(contacts.create(own, { first_name: "N" }, { keyId: null }))
                  model.set(contact.id, { updated_at: contact.updated_at, archived: false })
                } else if (ids.length > 0) {
                  const id = ids[step.pick % ids.length]!
                  if (model.get(id)!.archived) continue
                  if (step.kind === "update") {
                    const contact = yield* at(contacts.update(own, id, { first_name: "U" }, { keyId: null }))
                    model.set(id, { updated_at: contact.updated_at, archived: false })
                  } else {
                    yield* at(contacts.archive(own, id))
                    model.set(id, { updated_at: new Date(now).toISOString(), archived: true })
                  }
                }
              }
              const walkAll = (includeArchived: boolean) =>
                Effect.gen(function* () {
                  const seen: Array<Contacts.Contact & { archived_at?: string | null }> = []
                  let cursor: string | null = null
                  for (let n = 0; n < 100; n++) {
                    const query = Contacts.ContactListQuery.parse({
                      order: "updated_at",
                      limit: String(limit),
                      ...(includeArchived ? { include_archived: "true" } : {}),
                      ...(cursor === null ? {} : { cursor })
                    })
                    const page = yield* contacts.list(own, query)
                    seen.push(...page.data)
                    cursor = (page as Wire.SyncPageResult<Contacts.Contact>).next_cursor
                    if (!page.has_more) break
                  }
                  return seen
                })
              return { live: yield* walkAll(false), archived: yield* walkAll(true), listed: model }
            })
          )
          const expected = (keep: (entry: { archived: boolean }) => boolean) =>
            [...listed]
              .filter(([, entry]) => keep(entry))
              .sort(([x, a], [y, b]) =>
                a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : x < y ? -1 : x > y ? 1 : 0
              )
              .map(([id, entry]) => ({ id, updated_at: entry.updated_at }))
          expect(live.map((row) => ({ id: row.id, updated_at: row.updated_at }))).toEqual(
            expected((entry) => !entry.archived)
          )
          expect(archived.map((row) => ({ id: row.id, updated_at: row.updated_at }))).toEqual(expected(() => true))
          expect(
            archived
              .filter((row) => row.archived_at !== null)
              .map((row) => row.id)
              .sort()
          ).toEqual(
            [...listed]
              .filter(([, entry]) => entry.archived)
              .map(([id]) => id)
              .sort()
          )
        }
      ),
      { numRuns: 20 }
    )
  }, 60_000)
})
