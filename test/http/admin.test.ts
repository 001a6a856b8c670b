import { expect, it } from "vitest"
import { onEveryStore } from "../support/suite.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

onEveryStore("admin API", (server) => {
  it("refuses calls without the admin token", async () => {
    const admin = server().admin
    expect(
      (await admin.request("POST", "/organisations", { body: { name: "x" }, headers: { authorization: "" } })).status
    ).toBe(401)
    const wrong = await admin.request("POST", "/organisations", {
      body: { name: "x" },
      headers: { authorization: "Bearer nope" }
    })
    expect(wrong.status).toBe(401)
    expect(wrong.body.error).toBe("invalid_api_key")
  })

  it("creates an organisation with a default pipeline whose stages have ids, open then won then lost", async () => {
    const created = await server().admin.post("/organisations", { name: "Fresh" })
    expect(created.status).toBe(201)
    expect(created.body.name).toBe("Fresh")
    const { settings } = created.body
    expect(settings).toMatchObject({ name: "Fresh", timezone: "UTC", default_currency: "EUR", payment_terms_days: 14 })
    expect(settings.pipelines).toHaveLength(1)
    const kinds = settings.pipelines[0].stages.map((stage: any) => stage.kind)
    expect(kinds[0]).toBe("open")
    expect(kinds.slice(-2)).toEqual(["won", "lost"])
    expect(settings.pipelines[0].id).toMatch(UUID)
    for (const stage of settings.pipelines[0].stages) expect(stage.id).toMatch(UUID)
    expect((await server().admin.get(`/organisations/${created.body.id}`)).body).toEqual(created.body)
  })

  it("replaces settings keeping the ids sent back and validating the document", async () => {
    const created = await server().admin.post("/organisations", { name: "Org" })
    const pipeline = created.body.settings.pipelines[0]
    const next = {
      ...created.body.settings,
      timezone: "Europe/Prague",
      pipelines: [
        { ...pipeline, stages: [...pipeline.stages, { name: "Parked", kind: "open", required_fields: ["value"] }] },
        {
          name: "Renewals",
          stages: [
            { name: "Due", kind: "open" },
            { name: "Renewed", kind: "won" }
          ]
        }
      ]
    }
    const replaced = await server().admin.put(`/organisations/${created.body.id}/settings`, next)
    expect(replaced.status).toBe(200)
    expect(replaced.body.settings.timezone).toBe("Europe/Prague")
    expect(replaced.body.settings.pipelines[0].id).toBe(pipeline.id)
    expect(replaced.body.settings.pipelines[0].stages[0].id).toBe(pipeline.stages[0].id)
    expect(replaced.body.settings.pipelines[1].stages[1].id).toMatch(UUID)
    const bad = await server().admin.put(`/organisations/${created.body.id}/settings`, { timezone: "Mars/Olympus" })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].path).toBe("timezone")
    expect((await server().admin.put(`/organisations/${crypto.randomUUID()}/settings`, {})).status).toBe(404)
  })

  it("shows a key once, stores it usable, and revokes it at once", async () => {
    const org = await server().admin.post("/organisations", { name: "Keys" })
    const key = await server().admin.post(`/organisations/${org.body.id}/keys`, {
      name: "ci",
      scopes: ["read", "write"],
      allowed_ips: ["127.0.0.1/32"]
    })
    expect(key.status).toBe(201)
    expect(key.body).toMatchObject({
      name: "ci",
      scopes: ["read", "write"],
      expires_at: null,
      allowed_ips: ["127.0.0.1/32"]
    })
    expect(key.body.key).toMatch(/^mck_[0-9A-Za-z]{49}$/)
    expect((await server().as(key.body.key).get("/me")).status).toBe(200)
    expect(JSON.stringify((await server().admin.get(`/organisations/${org.body.id}`)).body)).not.toContain(key.body.key)
    expect((await server().admin.delete(`/keys/${key.body.id}`)).status).toBe(204)
    expect((await server().as(key.body.key).get("/me")).status).toBe(401)
    expect((await server().admin.delete(`/keys/${crypto.randomUUID()}`)).status).toBe(404)
    const badScope = await server().admin.post(`/organisations/${org.body.id}/keys`, { scopes: ["admin"] })
    expect(badScope.status).toBe(422)
  })
})
