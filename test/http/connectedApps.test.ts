/**
 * Connected apps through the real server (`/settings/v1/organisations/{id}/apps`): the assistants
 * people connected through OAuth, listed apart from the API keys, revoked by their person or by an
 * owner or admin, each step in the audit trail.
 */
import { expect, it } from "vitest"
import { connectApp } from "../support/apps.js"
import { join, withOwner } from "../support/people.js"
import { onEveryStore } from "../support/suite.js"

const CLIENT = "https://client.example/meta.json"

onEveryStore("connected apps", (server) => {
  it("lists an app with its client, scopes and person, apart from the keys, and audits its connection", async () => {
    const owner = await withOwner(server())
    const organisationId: string = owner.organisation.id
    const settings = owner.person.settings(organisationId)
    const key = await settings.post("/keys", { name: "integration", scopes: ["read"] })
    expect(key.status).toBe(201)

    const app = await connectApp(server(), organisationId, owner, {
      clientId: CLIENT,
      clientName: "<b>Claude</b>",
      scopes: ["read", "write"]
    })

    const apps = await settings.get("/apps")
    expect(apps.status).toBe(200)
    expect(apps.body).toMatchObject({ has_more: false })
    expect(apps.body.data).toEqual([
      {
        id: app.id,
        client_id: CLIENT,
        client_name: "<b>Claude</b>",
        scopes: ["read", "write"],
        created_by: owner.userId,
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: null
      }
    ])
    // The keys list holds the key made as a key, not the app.
    const keys = await settings.get("/keys")
    expect(keys.body.data.map((listed: any) => listed.id)).toEqual([key.body.id])

    const trail = (await settings.get("/audit?limit=200")).body.data
    expect(trail.find((entry: any) => entry.action === "app.connected")).toMatchObject({
      actor: { kind: "user", id: owner.userId, label: owner.email },
      target: { kind: "key", id: app.id },
      summary: { client_id: CLIENT, client_name: "<b>Claude</b>", scopes: ["read", "write"] }
    })
  })

  it("lets a member revoke the app they connected but not the owner's, and records each revocation once", async () => {
    const owner = await withOwner(server())
    const organisationId: string = owner.organisation.id
    const member = await join(server(), organisationId, "member")
    const connection = { clientId: CLIENT, clientName: "Assistant", scopes: ["read"] } as const
    const owners = await connectApp(server(), organisationId, owner, connection)
    const mine = await connectApp(server(), organisationId, member, connection)
    const asMember = member.person.settings(organisationId)

    // A member sees every app of the organisation.
    const listed = await asMember.get("/apps")
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((app: any) => app.id).sort()).toEqual([owners.id, mine.id].sort())

    const refused = await asMember.delete(`/apps/${owners.id}`)
    expect(refused.status).toBe(403)
    expect(refused.body.error).toBe("forbidden")

    // Revoking twice answers as revoking a key twice does: done, and done.
    expect((await asMember.delete(`/apps/${mine.id}`)).status).toBe(204)
    expect((await asMember.delete(`/apps/${mine.id}`)).status).toBe(204)

    const ownerSettings = owner.person.settings(organisationId)
    const after = (await ownerSettings.get("/apps")).body.data
    expect(after.find((app: any) => app.id === owners.id).revoked_at).toBeNull()
    expect(after.find((app: any) => app.id === mine.id).revoked_at).toEqual(expect.any(String))

    const trail = (await ownerSettings.get("/audit?limit=200")).body.data
    const revoked = trail.filter((entry: any) => entry.action === "app.revoked")
    expect(revoked).toHaveLength(1)
    expect(revoked[0]).toMatchObject({
      actor: { kind: "user", id: member.userId, label: member.email },
      target: { kind: "key", id: mine.id },
      summary: { client_id: CLIENT, client_name: "Assistant", scopes: ["read"] }
    })
    expect(trail.filter((entry: any) => entry.action === "app.connected")).toHaveLength(2)
  })

  it("answers 404 for an app it does not know, or another organisation's", async () => {
    const owner = await withOwner(server())
    const other = await withOwner(server(), "Another org")
    const theirs = await connectApp(server(), other.organisation.id, other, {
      clientId: CLIENT,
      clientName: null,
      scopes: ["read"]
    })
    const settings = owner.person.settings(owner.organisation.id)
    for (const id of [crypto.randomUUID(), theirs.id]) {
      const missing = await settings.delete(`/apps/${id}`)
      expect(missing.status).toBe(404)
      expect(missing.body.error).toBe("not_found")
    }
    const untouched = await other.person.settings(other.organisation.id).get("/apps")
    expect(untouched.body.data[0]).toMatchObject({ id: theirs.id, client_name: null, revoked_at: null })
  })
})
