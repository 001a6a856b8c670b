/**
 * Erasure of a person (issue 34, the right to be forgotten): `POST /contacts/{id}/erase` removes
 * the contact's personal fields and every copy the kernel stored, except what the books must keep.
 */
import { Webhooks } from "@crm/core"
import * as Effect from "effect/Effect"
import { expect, it } from "vitest"
import { clockAt } from "../support/clock.js"
import { shipTo } from "../support/orders.js"
import { startReceiver } from "../support/receiver.js"
import type { Client, TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const SCOPES = ["read", "write", "invoices:write", "forms:submit", "analytics:write"]
const SETTINGS = {
  default_currency: "EUR",
  country: "CZ",
  forms: [
    {
      name: "Contact us",
      fields: [
        { key: "email", type: "email", required: true, maps_to: "email" },
        { key: "name", type: "text", maps_to: "first_name" },
        { key: "message", type: "textarea" }
      ]
    }
  ]
}

/** Every personal value the person below ever gave: none may be found anywhere after erasure. */
const PERSONAL = ["erin.erased@example.com", "Erin", "Erasmus", "+420 777 111 222", "gold-tier-secret", "Hi, call me!"]

const expectNone = (text: string) => {
  for (const value of PERSONAL) expect(text.toLowerCase()).not.toContain(value.toLowerCase())
}

const dispatchAt = (server: TestServer, ms: number) =>
  server.run(Effect.flatMap(Webhooks.Webhooks, (webhooks) => webhooks.dispatch).pipe(Effect.withClock(clockAt(ms))))

const allEvents = async (client: Client): Promise<Array<any>> => {
  const page = await client.get("/events?since=0&limit=500")
  expect(page.status).toBe(200)
  return page.body.data
}

/** A person who filled in the form, visited, was mailed, and was invoiced (one issued, one draft). */
const person = async (server: () => TestServer) => {
  const tenant = await server().tenant({ scopes: SCOPES, settings: SETTINGS })
  const { client } = tenant
  const form = tenant.organisation.settings.forms[0].id
  const submitted = await client.post(`/forms/${form}/submissions`, {
    fields: { email: PERSONAL[0], name: PERSONAL[1], message: PERSONAL[5] },
    visitor_id: "visitor-erin"
  })
  expect(submitted.status, submitted.text).toBe(201)
  const id = submitted.body.contact_id
  const patched = await client.patch(`/contacts/${id}`, {
    last_name: PERSONAL[2],
    phone: PERSONAL[3],
    custom: { note: PERSONAL[4] }
  })
  expect(patched.status, patched.text).toBe(200)
  expect(
    (await client.post("/visits", { url: "https://example.com/pricing", visitor_id: "visitor-erin" })).status
  ).toBe(202)
  await shipTo(client, PERSONAL[0]!)
  const issued = await client.post("/invoices", {
    contact_id: id,
    items: [{ name: "Work", quantity: 1, unit_price: 100, vat_rate: 21 }]
  })
  expect(issued.status, issued.text).toBe(201)
  expect((await client.post(`/invoices/${issued.body.id}/issue`)).status).toBe(200)
  const draft = await client.post("/invoices", {
    contact_id: id,
    items: [{ name: "More", quantity: 1, unit_price: 50, vat_rate: 21 }]
  })
  expect(draft.status, draft.text).toBe(201)
  expect(draft.body.buyer).toMatchObject({ name: "Erin Erasmus", email: PERSONAL[0] })
  return { ...tenant, id, form, issued: issued.body, draft: draft.body }
}

onEveryStore(
  "contact erasure",
  (server) => {
    it("removes the person from the contact, events, mail and drafts, and keeps issued invoices for the books", async () => {
      const { client, organisation, id, form, issued, draft } = await person(server)
      const mailBefore = await server().admin.get(`/organisations/${organisation.id}/mail`)
      expect(mailBefore.body.data.map((message: any) => message.to)).toContain(PERSONAL[0])
      expect(JSON.stringify(await allEvents(client))).toContain(PERSONAL[5])

      const erased = await client.post(`/contacts/${id}/erase`)
      expect(erased.status, erased.text).toBe(200)
      expect(erased.body).toEqual({
        id,
        erased: true,
        kept: [{ what: "invoice", id: issued.id, reason: expect.stringContaining("issued invoice") }]
      })

      expect((await client.get(`/contacts/${id}`)).status).toBe(404)
      expect((await client.get(`/contacts?email=${PERSONAL[0]}`)).body.data).toEqual([])
      const archived = await client.get("/contacts?include_archived=true&order=updated_at")
      expectNone(archived.text)

      // A later page of the history holds no erased value, and every payload keeps its keys.
      const events = await allEvents(client)
      expectNone(JSON.stringify(events))
      const created = events.find((event) => event.event === "contact.created" && event.data.id === id)
      expect(created.data).toMatchObject({ first_name: null, last_name: null, email: null, phone: null, custom: {} })
      const submittedEvent = events.find((event) => event.event === "form.submitted")
      expect(submittedEvent.data).toEqual({ form_id: form, contact_id: id, fields: {} })
      expect(events.filter((event) => event.event === "contact.erased").map((event) => event.data)).toEqual([{ id }])
      const only = await client.get("/events?since=0&event=contact.erased")
      expect(only.body.data.map((event: any) => event.data)).toEqual([{ id }])

      const mail = await server().admin.get(`/organisations/${organisation.id}/mail`)
      expect(mail.status).toBe(200)
      expectNone(mail.text)

      // Submissions stay counted, without their answers.
      expect((await client.get(`/forms/${form}/counts`)).body.total).toBe(1)

      const keptInvoice = await client.get(`/invoices/${issued.id}`)
      expect(keptInvoice.body.buyer).toEqual(issued.buyer)
      expect(keptInvoice.body.buyer.email).toBe(PERSONAL[0])
      const scrubbedDraft = await client.get(`/invoices/${draft.id}`)
      expect(scrubbedDraft.body.buyer).toMatchObject({ name: null, email: null })

      // The address is free for someone new.
      expect((await client.post("/contacts", { email: PERSONAL[0] })).status).toBe(201)
    })

    it("is idempotent: a repeat answers the same and emits nothing; an unknown id is 404", async () => {
      const { client, id, issued } = await person(server)
      const first = await client.post(`/contacts/${id}/erase`)
      const again = await client.post(`/contacts/${id}/erase`)
      expect(again.status).toBe(200)
      expect(again.body).toEqual(first.body)
      expect(first.body.kept.map((kept: any) => kept.id)).toEqual([issued.id])
      expect((await client.get("/events?since=0&event=contact.erased")).body.data).toHaveLength(1)
      expect((await client.post(`/contacts/${crypto.randomUUID()}/erase`)).status).toBe(404)
      expect((await client.post("/contacts/not-a-uuid/erase")).status).toBe(404)
    })

    it("erases an archived contact too", async () => {
      const { client } = await server().tenant()
      const contact = await client.post("/contacts", { first_name: "Erin", email: PERSONAL[0] })
      expect((await client.delete(`/contacts/${contact.body.id}`)).status).toBe(204)
      const erased = await client.post(`/contacts/${contact.body.id}/erase`)
      expect(erased.status).toBe(200)
      expect(erased.body).toEqual({ id: contact.body.id, erased: true, kept: [] })
      expectNone(JSON.stringify(await allEvents(client)))
      expectNone((await client.get("/contacts?include_archived=true&order=updated_at")).text)
    })

    it("needs scope write, and never reaches another organisation's contact", async () => {
      const { client, organisation } = await server().tenant()
      const contact = await client.post("/contacts", { first_name: "Erin", email: PERSONAL[0] })
      const key = await server().admin.post(`/organisations/${organisation.id}/keys`, {
        name: "reader",
        scopes: ["read"]
      })
      expect(key.status, key.text).toBe(201)
      const reader = server().as(key.body.key)
      const refused = await reader.post(`/contacts/${contact.body.id}/erase`)
      expect(refused.status).toBe(403)
      expect(refused.body.error).toBe("missing_scope:write")

      const other = await server().tenant()
      expect((await other.client.post(`/contacts/${contact.body.id}/erase`)).status).toBe(404)
      expect((await client.get(`/contacts/${contact.body.id}`)).body.first_name).toBe("Erin")
    })

    it("rewrites the webhook bodies and drops the attempts' excerpts; contact.erased carries the id only", async () => {
      const { client } = await server().tenant()
      // The receiver echoes what it got, so the attempt's excerpt holds the person too.
      const receiver = await startReceiver((request) => ({ status: 200, body: request.body }))
      const hook = await client.post("/hooks", {
        target_url: receiver.url,
        events: ["contact.created", "contact.erased"]
      })
      expect(hook.status).toBe(201)
      const contact = await client.post("/contacts", { first_name: "Erin", email: PERSONAL[0], phone: PERSONAL[3] })
      expect(await dispatchAt(server(), Date.now())).toBe(1)
      const deliveries = async () => await client.get(`/hooks/${hook.body.id}/deliveries`)
      expect((await deliveries()).text).toContain(PERSONAL[0])

      expect((await client.post(`/contacts/${contact.body.id}/erase`)).status).toBe(200)
      expectNone((await deliveries()).text)
      expect(await dispatchAt(server(), Date.now())).toBe(1)
      expect(JSON.parse(receiver.received[1]!.body)).toMatchObject({
        event: "contact.erased",
        data: { id: contact.body.id }
      })
      expect(Object.keys(JSON.parse(receiver.received[1]!.body).data)).toEqual(["id"])

      // A redelivery sends the rewritten envelope, byte for byte what the history holds.
      const [created] = (await deliveries()).body.data.filter((delivery: any) => delivery.event === "contact.created")
      expect((await client.post(`/hooks/${hook.body.id}/deliveries/${created.id}/redeliver`)).status).toBe(200)
      expect(await dispatchAt(server(), Date.now())).toBe(1)
      const resent = receiver.received[2]!.body
      expectNone(resent)
      const [event] = (await client.get("/events?since=0&event=contact.created")).body.data
      expect(resent).toBe(JSON.stringify(event))
      await client.delete(`/hooks/${hook.body.id}`)
      await receiver.close()
    })
  },
  { webhooks: { worker: false, allowPrivateTargets: true, timeoutMs: 1000 } }
)
