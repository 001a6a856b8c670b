import { expect, it } from "vitest"
import { onEveryStore } from "../support/suite.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const PEOPLE = [
  { name: "Alice Novak", email: "alice@example.com" },
  { name: "Bob Svoboda", email: "bob@example.com" }
]

onEveryStore("people and key owners", (server) => {
  it("gives settings users ids, keeps the ids sent back and refuses a repeated email", async () => {
    const org = await server().admin.post("/organisations", { name: "People", settings: { users: PEOPLE } })
    expect(org.status).toBe(201)
    const users = org.body.settings.users
    expect(users.map((user: any) => user.name)).toEqual(["Alice Novak", "Bob Svoboda"])
    for (const user of users) expect(user.id).toMatch(UUID)
    const replaced = await server().admin.put(`/organisations/${org.body.id}/settings`, {
      ...org.body.settings,
      users: [...users, { name: "Cecil", email: "cecil@example.com" }]
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.settings.users.slice(0, 2)).toEqual(users)
    const twice = await server().admin.put(`/organisations/${org.body.id}/settings`, {
      users: [...PEOPLE, { name: "Alice again", email: "ALICE@example.com" }]
    })
    expect(twice.status).toBe(422)
    expect(twice.body.detail[0].path).toBe("users.2.email")
    const badEmail = await server().admin.put(`/organisations/${org.body.id}/settings`, {
      users: [{ name: "X", email: "not an email" }]
    })
    expect(badEmail.status).toBe(422)
  })

  it("accepts a key owner who is one of the organisation's users and shows it in /me", async () => {
    const org = await server().admin.post("/organisations", { name: "Owners", settings: { users: PEOPLE } })
    const alice = org.body.settings.users[0]
    const key = await server().admin.post(`/organisations/${org.body.id}/keys`, {
      name: "alice's assistant",
      scopes: ["read"],
      owner_id: alice.id.toUpperCase()
    })
    expect(key.status).toBe(201)
    expect(key.body.owner_id).toBe(alice.id)
    // `/me` keeps the decisions page's shape: the owner shows where the key acts (create_task).
    const me = await server().as(key.body.key).get("/me")
    expect(me.status).toBe(200)
    expect(me.body.key).not.toHaveProperty("owner_id")
  })

  it("gives a key without an owner a null owner", async () => {
    const org = await server().admin.post("/organisations", { name: "Nobody", settings: { users: PEOPLE } })
    const key = await server().admin.post(`/organisations/${org.body.id}/keys`, { scopes: ["read"], owner_id: null })
    expect(key.status).toBe(201)
    expect(key.body.owner_id).toBeNull()
  })

  it("refuses an owner who is not one of the organisation's users with 422 naming owner_id", async () => {
    const other = await server().admin.post("/organisations", { name: "Other", settings: { users: PEOPLE } })
    const org = await server().admin.post("/organisations", { name: "Mine", settings: { users: PEOPLE } })
    for (const owner_id of [crypto.randomUUID(), other.body.settings.users[0].id]) {
      const refused = await server().admin.post(`/organisations/${org.body.id}/keys`, { scopes: ["read"], owner_id })
      expect(refused.status).toBe(422)
      expect(refused.body.error).toBe("validation_failed")
      expect(refused.body.detail[0].path).toBe("owner_id")
    }
    const malformed = await server().admin.post(`/organisations/${org.body.id}/keys`, {
      scopes: ["read"],
      owner_id: "alice"
    })
    expect(malformed.status).toBe(422)
    expect(malformed.body.detail[0].path).toBe("owner_id")
  })
})
