import { expect, it } from "vitest"
import { onEveryStore } from "../support/suite.js"

onEveryStore("companies", (server) => {
  it("creates, reads, updates, searches and archives a company", async () => {
    const { client } = await server().tenant()
    const created = await client.post("/companies", {
      name: "Acme s.r.o.",
      domain: "acme.test",
      email: "Info@Acme.test",
      vat_number: "CZ123",
      city: "Praha",
      country: "cz",
      custom: { size: 10 }
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      name: "Acme s.r.o.",
      email: "info@acme.test",
      country: "CZ",
      custom: { size: 10 }
    })
    expect(Object.keys(created.body).sort()).toEqual([
      "city",
      "country",
      "created_at",
      "custom",
      "domain",
      "email",
      "id",
      "name",
      "updated_at",
      "vat_number"
    ])
    const id = created.body.id
    const patched = await client.patch(`/companies/${id}`, { city: null, name: "Acme a.s." })
    expect(patched.body).toMatchObject({ name: "Acme a.s.", city: null, domain: "acme.test" })
    await client.post("/companies", { name: "Other" })
    expect((await client.get("/companies?q=ACME.TEST")).body.data.map((c: any) => c.id)).toEqual([id])
    expect((await client.get("/companies?q=info@")).body.data).toHaveLength(1)
    expect((await client.delete(`/companies/${id}`)).status).toBe(204)
    expect((await client.get(`/companies/${id}`)).status).toBe(404)
    expect((await client.get("/companies")).body.data).toHaveLength(1)
  })

  it("validates the body", async () => {
    const { client } = await server().tenant()
    expect((await client.post("/companies", {})).status).toBe(422)
    const badCountry = await client.post("/companies", { name: "X", country: "Czechia" })
    expect(badCountry.status).toBe(422)
    expect(badCountry.body.detail[0].path).toBe("country")
    const id = (await client.post("/companies", { name: "X" })).body.id
    expect((await client.patch(`/companies/${id}`, { name: "" })).status).toBe(422)
    expect((await client.patch(`/companies/${id}`, {})).body.error).toBe("no_fields_to_update")
  })

  it("refuses creates past the plan's company limit", async () => {
    const { client } = await server().tenant({ settings: { plan: { max_companies: 0 } } })
    const refused = await client.post("/companies", { name: "X" })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ error: "plan_refused", detail: "MAX_COMPANIES" })
  })
})
