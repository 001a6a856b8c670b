/** Tickets over REST: list with filters, get, and the reply that mails the requester. */
import { Access, Ids, Organisation, Tickets } from "@crm/core"
import * as Effect from "effect/Effect"
import { expect, it } from "vitest"
import type { TestServer } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const UPDATED_KEYS = ["id", "number", "status", "priority", "assigned_to"]

const createTicket = (
  server: TestServer,
  organisationId: string,
  input: Parameters<Tickets.Tickets["Type"]["create"]>[1]
) =>
  server.run(
    Effect.flatMap(Access.Access, (access) =>
      Effect.flatMap(access.getOrganisation(Ids.brand(Organisation.OrganisationId, organisationId)), (organisation) =>
        Effect.flatMap(Tickets.Tickets, (tickets) => tickets.create(organisation, input))
      )
    )
  )

onEveryStore("tickets over REST", (server) => {
  const setup = async (scopes?: ReadonlyArray<string>) => {
    const tenant = await server().tenant(scopes === undefined ? {} : { scopes })
    const mail = async () => {
      const page = await server().admin.get(`/organisations/${tenant.organisation.id}/mail`)
      expect(page.status).toBe(200)
      return page.body.data as Array<any>
    }
    const ticket = (input: Parameters<Tickets.Tickets["Type"]["create"]>[1]) =>
      createTicket(server(), tenant.organisation.id, input)
    return { ...tenant, mail, ticket }
  }

  it("lists tickets newest first with the status, channel and contact filters, and gets one", async () => {
    const { client, ticket } = await setup()
    const contact = await client.post("/contacts", { first_name: "Ann", email: "ann@example.com" })
    const first = await ticket({ subject: "Cannot log in", contact_id: contact.body.id, channel: "email" })
    await new Promise((resolve) => setTimeout(resolve, 5))
    const second = await ticket({ subject: "Invoice wrong", requester_email: "bob@example.com", status: "pending" })
    const page = await client.get("/tickets")
    expect(page.status, page.text).toBe(200)
    expect(page.body.data.map((t: any) => t.id)).toEqual([second.id, first.id])
    expect(page.body).toMatchObject({ limit: 50, offset: 0, has_more: false })
    expect((await client.get("/tickets?status=pending")).body.data.map((t: any) => t.id)).toEqual([second.id])
    expect((await client.get("/tickets?channel=email")).body.data.map((t: any) => t.id)).toEqual([first.id])
    expect((await client.get(`/tickets?contact_id=${contact.body.id}`)).body.data.map((t: any) => t.id)).toEqual([
      first.id
    ])
    expect((await client.get("/tickets?breached=false")).body.data).toHaveLength(2)
    expect((await client.get("/tickets?status=nope")).status).toBe(422)
    const one = await client.get(`/tickets/${first.id}`)
    expect(one.status).toBe(200)
    expect(one.body).toEqual({ ...first })
    expect((await client.get(`/tickets/${crypto.randomUUID()}`)).status).toBe(404)
  })

  it("keeps tickets inside their organisation", async () => {
    const mine = await setup()
    const theirs = await setup()
    const secret = await theirs.ticket({ subject: "Secret", requester_email: "x@example.com" })
    expect((await mine.client.get(`/tickets/${secret.id}`)).status).toBe(404)
    expect((await mine.client.get("/tickets")).body.data).toEqual([])
    expect((await mine.client.post(`/tickets/${secret.id}/reply`, { body: "hi" })).status).toBe(404)
    expect(await theirs.mail()).toEqual([])
  })

  it("a reply mails the requester and moves an open ticket to pending, emitting ticket.updated", async () => {
    const { client, ticket, mail } = await setup()
    const open = await ticket({ subject: "Cannot log in", requester_email: "Ann@Example.com" })
    const before = (await client.get("/events")).body.data.length
    const replied = await client.post(`/tickets/${open.id}/reply`, { body: "Try resetting your password." })
    expect(replied.status, replied.text).toBe(200)
    expect(replied.body).toMatchObject({ id: open.id, status: "pending" })
    expect(replied.body.updated_at >= open.updated_at).toBe(true)
    expect((await client.get(`/tickets/${open.id}`)).body.status).toBe("pending")
    const [message, ...rest] = await mail()
    expect(rest).toEqual([])
    expect(message).toMatchObject({
      to: "ann@example.com",
      subject: `Re: [${open.number}] Cannot log in`,
      body: "Try resetting your password."
    })
    const events = (await client.get("/events")).body.data.slice(before)
    expect(events.map((event: any) => event.event)).toEqual(["ticket.updated"])
    expect(Object.keys(events[0].data)).toEqual(UPDATED_KEYS)
    expect(events[0].data).toMatchObject({ id: open.id, status: "pending" })

    // A second reply on the now pending ticket mails again and changes nothing else.
    const again = await client.post(`/tickets/${open.id}/reply`, { body: "Any luck?" })
    expect(again.status).toBe(200)
    expect(again.body.status).toBe("pending")
    expect(again.body.updated_at).toBe(replied.body.updated_at)
    expect(await mail()).toHaveLength(2)
    expect((await client.get("/events")).body.data.slice(before)).toHaveLength(1)
  })

  it("a solved ticket keeps its status; a closed one refuses the reply and mails nothing", async () => {
    const { client, ticket, mail } = await setup()
    const solved = await ticket({ subject: "Solved", requester_email: "s@example.com", status: "solved" })
    const closed = await ticket({ subject: "Closed", requester_email: "c@example.com", status: "closed" })
    const answer = await client.post(`/tickets/${solved.id}/reply`, { body: "Glad it works" })
    expect(answer.status).toBe(200)
    expect(answer.body.status).toBe("solved")
    const refused = await client.post(`/tickets/${closed.id}/reply`, { body: "Hello?" })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toBe("transition_not_allowed")
    expect((await mail()).map((m) => m.to)).toEqual(["s@example.com"])
  })

  it("validates the reply body strictly and needs the write scope", async () => {
    const { client, ticket } = await setup()
    const open = await ticket({ subject: "X", requester_email: "x@example.com" })
    for (const body of [{}, { body: "" }, { body: "x".repeat(20_001) }, { body: "ok", cc: "boss@example.com" }]) {
      const refused = await client.post(`/tickets/${open.id}/reply`, body)
      expect(refused.status, JSON.stringify(body)).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
    }
    expect((await client.post(`/tickets/${open.id}/reply`, { body: "x".repeat(20_000) })).status).toBe(200)
    const reader = await setup(["read"])
    const theirs = await reader.ticket({ subject: "Y", requester_email: "y@example.com" })
    expect((await reader.client.get(`/tickets/${theirs.id}`)).status).toBe(200)
    const forbidden = await reader.client.post(`/tickets/${theirs.id}/reply`, { body: "hi" })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.error).toBe("missing_scope:write")
  })
})
