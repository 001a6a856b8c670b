/** A deal's owner is mailed (through the outbox) when the deal enters a won or lost stage. */
import { expect, it } from "vitest"
import { onEveryStore } from "../support/suite.js"

const USERS = [
  { name: "Alice Novak", email: "alice@example.com" },
  { name: "Bob Svoboda", email: "bob@example.com" }
]

onEveryStore("owner notification on a deal's close", (server) => {
  const setup = async () => {
    const tenant = await server().tenant({ settings: { users: USERS, default_currency: "CZK" } })
    const { settings } = tenant.organisation
    const stage = (kind: string) => settings.pipelines[0].stages.find((s: any) => s.kind === kind)
    const mail = async () => {
      const page = await server().admin.get(`/organisations/${tenant.organisation.id}/mail`)
      expect(page.status).toBe(200)
      return page.body.data as Array<any>
    }
    return { ...tenant, alice: settings.users[0], bob: settings.users[1], stage, mail }
  }

  it("mails the owner when the deal is won, with title, value, currency and stage", async () => {
    const { client, alice, stage, mail } = await setup()
    const deal = await client.post("/deals", { title: "Big boat", value: 125000, owner_id: alice.id })
    expect(deal.status, deal.text).toBe(201)
    expect(await mail()).toEqual([])
    await client.post(`/deals/${deal.body.id}/status`, { status_id: stage("open").id })
    expect(await mail()).toEqual([])
    const won = await client.post(`/deals/${deal.body.id}/status`, { status_id: stage("won").id })
    expect(won.status, won.text).toBe(200)
    const [message, ...rest] = await mail()
    expect(rest).toEqual([])
    expect(message).toMatchObject({ to: "alice@example.com", subject: "Deal won: Big boat", status: "queued" })
    expect(message.body).toContain("Big boat")
    expect(message.body).toContain("125000 CZK")
    expect(message.body).toContain(`Stage: ${stage("won").name}`)
    // Moving to the stage it is already in changes nothing: no second mail.
    await client.post(`/deals/${deal.body.id}/status`, { status_id: stage("won").id })
    expect(await mail()).toHaveLength(1)
  })

  it("mails the owner when the deal is lost, with the lost reason", async () => {
    const { client, bob, stage, mail } = await setup()
    const deal = await client.post("/deals", { title: "Small boat", owner_id: bob.id })
    const lost = await client.post(`/deals/${deal.body.id}/status`, {
      status_id: stage("lost").id,
      lost_reason: "went with a competitor"
    })
    expect(lost.status, lost.text).toBe(200)
    const [message] = await mail()
    expect(message).toMatchObject({ to: "bob@example.com", subject: "Deal lost: Small boat" })
    expect(message.body).toContain("Lost reason: went with a competitor")
    expect(message.body).toContain("Value: not set")
  })

  it("mails nobody when the deal has no owner or the owner is not one of the organisation's users", async () => {
    const { client, stage, mail } = await setup()
    const orphan = await client.post("/deals", { title: "Nobody's" })
    const stranger = await client.post("/deals", { title: "Stranger's", owner_id: crypto.randomUUID() })
    for (const deal of [orphan, stranger]) {
      expect(deal.status, deal.text).toBe(201)
      expect((await client.post(`/deals/${deal.body.id}/status`, { status_id: stage("won").id })).status).toBe(200)
    }
    expect(await mail()).toEqual([])
  })
})
