/**
 * Two servers on one PostgreSQL database behave as one API: the rate budget, revocations,
 * idempotency keys and counted limits hold across them. (`twoProcesses`.)
 */
import { expect, it } from "vitest"
import { describeOnServer } from "../support/pgServer.js"
import { twoProcesses } from "../support/processes.js"

describeOnServer("several server processes on one PostgreSQL database", () => {
  const { a, b } = twoProcesses()

  it("shares one rolling budget of 120 requests per key", async () => {
    const { key } = await a().tenant()
    const onA = a().as(key)
    const onB = b().as(key)
    const answers = await Promise.all(Array.from({ length: 130 }, (_, i) => (i % 2 === 0 ? onA : onB).get("/contacts")))
    expect(answers.filter((r) => r.status === 200)).toHaveLength(120)
    expect(answers.filter((r) => r.status === 429)).toHaveLength(10)
    expect((await onB.get("/me")).body.rate_limit.remaining).toBe(0)
  })

  it("refuses a revoked key at once on every process", async () => {
    const { key, keyId } = await a().tenant()
    expect((await b().as(key).get("/me")).status).toBe(200)
    expect((await a().admin.delete(`/keys/${keyId}`)).status).toBe(204)
    expect((await b().as(key).get("/me")).status).toBe(401)
  })

  it("replays an idempotent write on the other process and creates it exactly once under a race", async () => {
    const { key } = await a().tenant()
    const first = await a().as(key).post("/contacts", { first_name: "Once" }, { "idempotency-key": "k1" })
    const replay = await b().as(key).post("/contacts", { first_name: "Once" }, { "idempotency-key": "k1" })
    expect(replay.headers.get("idempotency-replayed")).toBe("true")
    expect(replay.text).toBe(first.text)

    const race = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a() : b()).as(key).post("/contacts", { first_name: "Race" }, { "idempotency-key": "k2" })
      )
    )
    for (const response of race) expect([201, 409]).toContain(response.status)
    const created = race.filter((r) => r.status === 201)
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1)
    expect((await a().as(key).get("/contacts?q=Race")).body.data).toHaveLength(1)
  })

  it.each([
    ["max_contacts", "/contacts", "first_name", "MAX_CONTACTS"],
    ["max_companies", "/companies", "name", "MAX_COMPANIES"]
  ])("holds %s exactly when 30 creates race on both processes", async (limit, path, field, code) => {
    const { key } = await a().tenant({ settings: { plan: { [limit]: 5 } } })
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a() : b()).as(key).post(path, { [field]: `N${i}` }))
    )
    expect(answers.filter((r) => r.status === 201)).toHaveLength(5)
    for (const refused of answers.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(403)
      expect(refused.body).toMatchObject({ error: "plan_refused", detail: code })
    }
    expect((await b().as(key).get(`${path}?limit=200`)).body.data).toHaveLength(5)
  })

  it.each([
    ["/contacts/by-email/race@example.com", { first_name: "Race" }, "/contacts", "contact.created"],
    ["/companies/by-domain/race.test", { name: "Race" }, "/companies", "company.created"],
    ["/products/by-sku/RACE-1", { name: "Race" }, "/products", "product.created"]
  ])("creates one record when 20 upserts of %s race on both processes", async (path, body, list, created) => {
    const { key } = await a().tenant()
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a() : b()).as(key).put(path, body))
    )
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1)
    expect(answers.filter((r) => r.status === 200)).toHaveLength(19)
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(1)
    expect((await b().as(key).get(list)).body.data).toHaveLength(1)
    expect((await a().as(key).get("/events?since=0")).body.data.map((e: any) => e.event)).toEqual([created])
  })

  it("runs racing batch upserts of overlapping keys on both processes without a deadlock", async () => {
    const { key } = await a().tenant()
    const emails = Array.from({ length: 8 }, (_, i) => `k${i}@example.com`)
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a() : b()).as(key).post("/contacts/batch", {
          mode: "upsert",
          // Each batch names the keys in its own order (a rotation): the locks are taken sorted.
          items: [...emails.slice(i % 8), ...emails.slice(0, i % 8)].map((email) => ({ email, custom: { n: i } }))
        })
      )
    )
    for (const answer of answers) expect(answer.status).toBe(201)
    expect((await a().as(key).get("/contacts?limit=200")).body.data).toHaveLength(8)
  })

  it("holds a key's 20 hook subscriptions when 30 subscribe at once on both processes", async () => {
    const { key } = await a().tenant()
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? a() : b())
          .as(key)
          .post("/hooks", { target_url: "https://1.1.1.1/hooks", events: ["deal.created"] })
      )
    )
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20)
    for (const refused of answers.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(409)
      expect(refused.body.error).toBe("too_many_hooks")
    }
    expect((await b().as(key).get("/hooks?limit=200")).body.data).toHaveLength(20)
  })
})
