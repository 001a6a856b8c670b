/**
 * Signed cursors (issue 34): every sync list's `next_cursor` carries an HMAC, under the store's
 * secret, of the organisation, the list, the order and the position. A cursor re-encoded with
 * another time or id, changed in one character, cut short, or sent to another organisation, list
 * or order is 422 `validation_failed` naming `cursor`; a genuine one walks the pages as before.
 */
import { Access, Ids, Organisation, Tickets } from "@crm/core"
import * as Effect from "effect/Effect"
import { beforeAll, describe, expect, it } from "vitest"
import type { Client, TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const SCOPES = ["read", "write", "quotes:write", "invoices:write"]
const SETTINGS = {
  default_currency: "EUR",
  record_types: [{ key: "project", name: "Project", fields: [{ key: "budget", type: "number" }] }]
}
const LINE = { name: "Work", quantity: 1, unit_price: 100, vat_rate: 21 }
/** Rows made in each list: enough for a walk of several pages at limit=1. */
const ROWS = 3

interface Tenant {
  readonly organisation: { readonly id: string }
  readonly client: Client
}

const created = async (client: Client, path: string, body: unknown) => {
  const response = await client.post(path, body)
  expect(response.status, `${path} ${response.text}`).toBe(201)
  return response.body
}

const delivered = async (client: Client) => {
  const order = await created(client, "/orders", {
    external_id: `gifts-${crypto.randomUUID()}`,
    buyer: { email: "gifts@example.com" },
    items: [{ name: "Gift", quantity: ROWS, unit_price: 2, vat_rate: 21 }]
  })
  for (const patch of [
    { fulfilment: "confirmed" },
    { fulfilment: "shipped", tracking_url: "https://track.example/1" },
    { fulfilment: "delivered" }
  ]) {
    const moved = await client.patch(`/orders/${order.id}`, patch)
    expect(moved.status, moved.text).toBe(200)
  }
  return order
}

const ticket = (server: TestServer, organisationId: string, n: number) =>
  server.run(
    Effect.gen(function* () {
      const organisation = yield* (yield* Access.Access).getOrganisation(
        Ids.brand(Organisation.OrganisationId, organisationId)
      )
      const input = Tickets.TicketCreate.parse({ subject: `T${n}`, requester_email: "ann@example.com" })
      return yield* (yield* Tickets.Tickets).create(organisation, input)
    })
  )

interface List {
  readonly path: string
  /** Makes `ROWS` rows of the list in the tenant's organisation. */
  readonly fill: (tenant: Tenant, server: TestServer) => Promise<void>
}

const each = (make: (n: number) => Promise<unknown>) => async () => {
  for (let n = 0; n < ROWS; n++) await make(n)
}

const posted =
  (path: string, body: (n: number) => unknown): List["fill"] =>
  ({ client }) =>
    each((n) => created(client, path, body(n)))()

const LISTS: ReadonlyArray<List> = [
  { path: "/contacts", fill: posted("/contacts", (n) => ({ first_name: `C${n}` })) },
  { path: "/companies", fill: posted("/companies", (n) => ({ name: `Co${n}` })) },
  { path: "/deals", fill: posted("/deals", (n) => ({ title: `D${n}` })) },
  { path: "/tasks", fill: posted("/tasks", (n) => ({ title: `T${n}` })) },
  {
    path: "/products",
    fill: posted("/products", (n) => ({ sku: `SKU-${n}`, name: `P${n}`, unit_price: 10, vat_rate: 21 }))
  },
  { path: "/records", fill: posted("/records", (n) => ({ type: "project", title: `R${n}`, custom: {} })) },
  { path: "/quotes", fill: posted("/quotes", () => ({ items: [LINE] })) },
  { path: "/invoices", fill: posted("/invoices", () => ({ items: [LINE] })) },
  {
    path: "/orders",
    fill: posted("/orders", (n) => ({
      external_id: `ext-${n}`,
      buyer: { email: `buyer${n}@example.com` },
      items: [LINE]
    }))
  },
  {
    path: "/returns",
    fill: async ({ client }) => {
      const order = await delivered(client)
      await each(() => created(client, "/returns", { order_id: order.id, items: [{ line: 0, quantity: 1 }] }))()
    }
  },
  { path: "/tickets", fill: ({ organisation }, server) => each((n) => ticket(server, organisation.id, n))() },
  {
    path: "/purchase-orders",
    fill: posted("/purchase-orders", (n) => ({ supplier: `S${n}`, items: [{ name: "Tape", quantity: 1 }] }))
  }
]

type Order = "created_at" | "updated_at"
const ORDERS: ReadonlyArray<Order> = ["created_at", "updated_at"]
const orderQuery = (order: Order) => (order === "updated_at" ? "order=updated_at&" : "")

const get = (client: Client, path: string, order: Order, cursor: string, limit = 1) =>
  client.get(`${path}?${orderQuery(order)}limit=${limit}&cursor=${encodeURIComponent(cursor)}`)

const expectRefused = async (response: Promise<{ status: number; body: any; text: string }>, what: string) => {
  const answer = await response
  expect(answer.status, `${what}: ${answer.text}`).toBe(422)
  expect(answer.body.error, what).toBe("validation_failed")
  expect(
    answer.body.detail.map((issue: { path: string }) => issue.path),
    what
  ).toContain("cursor")
}

/** The first page's cursor of `path` in `order`, at limit=1: it points after the first row. */
const firstCursor = async (client: Client, path: string, order: Order) => {
  const page = await client.get(`${path}?${orderQuery(order)}limit=1`)
  expect(page.status, page.text).toBe(200)
  expect(page.body.has_more, path).toBe(true)
  return { cursor: page.body.next_cursor as string, first: page.body.data[0] }
}

// The cursor's layout, as someone forging one would read it off a genuine cursor: the order
// (1 byte), the time in milliseconds (8, big-endian), the row's uuid (16), then the MAC (32).
const TIME = 1
const ID = 9
const MAC = 25

const rewritten = (cursor: string, change: (bytes: Buffer) => void) => {
  const bytes = Buffer.from(cursor, "base64url")
  change(bytes)
  return bytes.toString("base64url")
}

/** The cursor with the row time and id of `row` written in place of its own, its MAC kept. */
const movedTo = (cursor: string, row: { id: string; created_at: string; updated_at: string }, order: Order) =>
  rewritten(cursor, (bytes) => {
    bytes.writeBigInt64BE(BigInt(Date.parse(order === "updated_at" ? row.updated_at : row.created_at)), TIME)
    Buffer.from(row.id.replaceAll("-", ""), "hex").copy(bytes, ID)
  })

/** One character replaced by another of the alphabet. */
const oneCharacterChanged = (cursor: string, at: number) =>
  `${cursor.slice(0, at)}${cursor[at] === "A" ? "B" : "A"}${cursor.slice(at + 1)}`

onEveryStore("signed cursors: bound to the organisation, the list and the order", (server) => {
  let mine: Tenant
  let theirs: Tenant
  /** A client with a key of its own, so that no case spends another's rate budget. */
  const keyed = async (tenant: Tenant): Promise<Client> => {
    const key = await server().admin.post(`/organisations/${tenant.organisation.id}/keys`, {
      name: "cursors",
      scopes: SCOPES
    })
    expect(key.status, key.text).toBe(201)
    return server().as(key.body.key)
  }
  /** Every row of each list, in the default order (listed whole once all are made). */
  const rows = new Map<string, Array<any>>()

  beforeAll(async () => {
    mine = await server().tenant({ scopes: SCOPES, settings: SETTINGS })
    theirs = await server().tenant({ scopes: SCOPES, settings: SETTINGS })
    for (const list of LISTS) await list.fill({ ...mine, client: await keyed(mine) }, server())
    const client = await keyed(mine)
    for (const list of LISTS) {
      const all = await client.get(`${list.path}?limit=200`)
      expect(all.status, all.text).toBe(200)
      rows.set(list.path, all.body.data)
    }
  })

  describe.each(LISTS.map((list, n) => ({ ...list, other: LISTS[(n + 1) % LISTS.length]!.path })))(
    "GET $path",
    ({ path, other }) => {
      it.each(ORDERS)("a genuine cursor walks every row, one page at a time (order %s)", async (order) => {
        const client = await keyed(mine)
        const seen: Array<string> = []
        let cursor: string | null = null
        for (let n = 0; n < 20; n++) {
          const page: any = await client.get(
            `${path}?${orderQuery(order)}limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
          )
          expect(page.status, page.text).toBe(200)
          seen.push(...page.body.data.map((row: { id: string }) => row.id))
          cursor = page.body.next_cursor
          if (!page.body.has_more) break
          // Compact and URL-safe as it travels.
          expect(cursor).toMatch(/^[A-Za-z0-9_-]{1,200}$/)
        }
        expect(cursor).toBeNull()
        expect([...seen].sort()).toEqual(
          rows
            .get(path)!
            .map((row) => row.id)
            .sort()
        )
        expect(new Set(seen).size).toBe(seen.length)
      })

      it.each(ORDERS)("refuses a cursor re-encoded with another row's time and id (order %s)", async (order) => {
        const client = await keyed(mine)
        const { cursor, first } = await firstCursor(client, path, order)
        const last = rows.get(path)!.find((row) => row.id !== first.id)
        // The genuine one is taken, so only the rewriting is refused.
        expect((await get(client, path, order, cursor)).status).toBe(200)
        await expectRefused(get(client, path, order, movedTo(cursor, last, order)), "another row")
        await expectRefused(
          get(
            client,
            path,
            order,
            rewritten(cursor, (bytes) => {
              bytes.writeBigInt64BE(bytes.readBigInt64BE(TIME) + 1n, TIME)
            })
          ),
          "a millisecond later"
        )
        await expectRefused(
          get(
            client,
            path,
            order,
            rewritten(cursor, (bytes) => {
              bytes[ID + 15] = bytes[ID + 15]! ^ 1
            })
          ),
          "another id"
        )
        // The unsigned format cursors had before they were signed.
        const legacy = Buffer.from(
          `${order === "updated_at" ? "u" : "c"}|${order === "updated_at" ? first.updated_at : first.created_at}|${first.id}`
        ).toString("base64url")
        await expectRefused(get(client, path, order, legacy), "unsigned")
      })

      it("refuses a cursor with one character changed, anywhere in it", async () => {
        const client = await keyed(mine)
        const { cursor } = await firstCursor(client, path, "updated_at")
        const positions = new Set([0, 2, Math.floor((MAC * 4) / 3), cursor.length - 2, cursor.length - 1])
        for (const at of positions) {
          await expectRefused(get(client, path, "updated_at", oneCharacterChanged(cursor, at)), `character ${at}`)
        }
      })

      it("refuses a truncated cursor", async () => {
        const client = await keyed(mine)
        const { cursor } = await firstCursor(client, path, "created_at")
        for (const length of [cursor.length - 1, cursor.length - 4, 40, 1]) {
          await expectRefused(get(client, path, "created_at", cursor.slice(0, length)), `${length} characters`)
        }
        await expectRefused(get(client, path, "created_at", `${cursor}A`), "one character more")
      })

      it.each(ORDERS)("refuses a cursor of another organisation's same list (order %s)", async (order) => {
        const { cursor } = await firstCursor(await keyed(mine), path, order)
        await expectRefused(get(await keyed(theirs), path, order, cursor), "another organisation")
      })

      it.each(ORDERS)(`refuses a cursor of another list (${other}, order %s)`, async (order) => {
        const client = await keyed(mine)
        const { cursor } = await firstCursor(client, other, order)
        await expectRefused(get(client, path, order, cursor), other)
      })

      it("refuses a cursor made for the other order, either way", async () => {
        const client = await keyed(mine)
        const byCreation = await firstCursor(client, path, "created_at")
        const byChange = await firstCursor(client, path, "updated_at")
        await expectRefused(get(client, path, "updated_at", byCreation.cursor), "default order's")
        await expectRefused(get(client, path, "created_at", byChange.cursor), "order=updated_at's")
        // Its own order byte rewritten to the other order's: the MAC still binds the order it was made for.
        await expectRefused(
          get(
            client,
            path,
            "updated_at",
            rewritten(byCreation.cursor, (bytes) => {
              bytes[0] = 2
            })
          ),
          "order byte rewritten"
        )
      })
    }
  )
})
