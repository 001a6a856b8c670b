import { expect, it } from "vitest"
import { onEveryStore } from "../support/suite.js"

const NOTE_FIELDS = [
  "author_key_id",
  "body",
  "call_id",
  "created_at",
  "entity_id",
  "entity_type",
  "id",
  "pinned",
  "type"
]

const paths = (response: { body: any }): Array<string> => response.body.detail.map((issue: any) => issue.path).sort()

onEveryStore("notes", (server) => {
  it("writes a note unpinned unless asked, pins and unpins it, and lists by the pin", async () => {
    const { client } = await server().tenant()
    const contact = await client.post("/contacts", { first_name: "Ada" })
    const on = { entity_type: "contact", entity_id: contact.body.id }

    const plain = await client.post("/notes", { ...on, body: "Asked for a quote" })
    expect(plain.status).toBe(201)
    expect(Object.keys(plain.body).sort()).toEqual(NOTE_FIELDS)
    expect(plain.body).toMatchObject({ ...on, type: "note", body: "Asked for a quote", pinned: false, call_id: null })
    const pinned = await client.post("/notes", { ...on, type: "meeting", body: "Met at the fair", pinned: true })
    expect(pinned.status).toBe(201)
    expect(pinned.body.pinned).toBe(true)
    expect((await client.get(`/notes/${plain.body.id}`)).body).toEqual(plain.body)

    const list = async (query: string) => {
      const page = await client.get(`/notes?entity_id=${contact.body.id}${query}`)
      expect(page.status).toBe(200)
      return page.body.data.map((note: any) => note.id)
    }
    expect(await list("&pinned=true")).toEqual([pinned.body.id])
    expect(await list("&pinned=false")).toEqual([plain.body.id])
    expect((await list("")).sort()).toEqual([plain.body.id, pinned.body.id].sort())

    const pin = await client.patch(`/notes/${plain.body.id}`, { pinned: true })
    expect(pin.status).toBe(200)
    expect(pin.body).toEqual({ ...plain.body, pinned: true })
    expect((await client.get(`/notes/${plain.body.id}`)).body.pinned).toBe(true)
    expect((await list("&pinned=true")).sort()).toEqual([plain.body.id, pinned.body.id].sort())
    const unpin = await client.patch(`/notes/${pinned.body.id}`, { pinned: false })
    expect(unpin.body).toEqual({ ...pinned.body, pinned: false })
    expect(await list("&pinned=false")).toEqual([pinned.body.id])
  })

  it("changes nothing but the pin, and refuses what it cannot read", async () => {
    const { client } = await server().tenant()
    const contact = await client.post("/contacts", { first_name: "Grace" })
    const note = await client.post("/notes", { entity_type: "contact", entity_id: contact.body.id, body: "Called" })

    // The body is no field a patch knows: alone it is no change at all, beside the pin a refusal.
    for (const patch of [{}, { body: "Rewritten" }]) {
      const refused = await client.patch(`/notes/${note.body.id}`, patch)
      expect(refused.status).toBe(422)
      expect(refused.body.error).toBe("no_fields_to_update")
    }
    const mixed = await client.patch(`/notes/${note.body.id}`, { pinned: true, body: "Rewritten" })
    expect(mixed.status).toBe(422)
    expect(paths(mixed)).toEqual(["body"])
    expect((await client.get(`/notes/${note.body.id}`)).body).toEqual(note.body)

    expect((await client.patch(`/notes/${crypto.randomUUID()}`, { pinned: true })).status).toBe(404)
    const filter = await client.get(`/notes?pinned=yes`)
    expect(filter.status).toBe(422)
    expect(paths(filter)).toEqual(["pinned"])
    const nobody = await client.post("/notes", { entity_type: "contact", entity_id: crypto.randomUUID(), body: "x" })
    expect(nobody.status).toBe(422)
    expect(paths(nobody)).toEqual(["entity_id"])
    const flag = await client.post("/notes", {
      entity_type: "contact",
      entity_id: contact.body.id,
      body: "x",
      pinned: "yes"
    })
    expect(flag.status).toBe(422)
    expect(paths(flag)).toEqual(["pinned"])
  })

  it("keeps each organisation's notes and pins to itself", async () => {
    const a = await server().tenant()
    const b = await server().tenant()
    const contact = await a.client.post("/contacts", { first_name: "Linus" })
    const note = await a.client.post("/notes", {
      entity_type: "contact",
      entity_id: contact.body.id,
      body: "Ours",
      pinned: true
    })
    expect((await b.client.get(`/notes/${note.body.id}`)).status).toBe(404)
    expect((await b.client.patch(`/notes/${note.body.id}`, { pinned: false })).status).toBe(404)
    expect((await b.client.get(`/notes?pinned=true`)).body.data).toEqual([])
    expect((await a.client.get(`/notes/${note.body.id}`)).body.pinned).toBe(true)
  })
})
