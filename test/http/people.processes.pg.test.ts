/**
 * What a person does in one process holds on every other at once: a key revoked in the settings
 * screen is refused by a process that had it cached, a member removed on one is no longer let in
 * on the other, and a session ended on one is refused by the other.
 */
import { expect, it } from "vitest"
import { join, withOwner } from "../support/people.js"
import { describeOnServer } from "../support/pgServer.js"
import { twoProcesses } from "../support/processes.js"
import type { Person } from "../support/server.js"

describeOnServer("people on several processes", () => {
  const { a, b } = twoProcesses()

  it("refuses on the other process, at once, a key revoked in the settings of one", async () => {
    const { organisation, person } = await withOwner(a(), "Two processes")
    const created = await person.settings(organisation.id).post("/keys", { name: "shared", scopes: ["read"] })
    expect(created.status, created.text).toBe(201)
    // Both processes answer the key, so each holds it in its cache.
    for (let n = 0; n < 3; n++) {
      expect((await a().as(created.body.key).get("/me")).status).toBe(200)
      expect((await b().as(created.body.key).get("/me")).status).toBe(200)
    }
    const revoked = await person.settings(organisation.id).delete(`/keys/${created.body.id}`)
    expect(revoked.status, revoked.text).toBe(204)
    // No wait: the revocation returned once every process had let go of the key.
    expect((await b().as(created.body.key).get("/me")).status).toBe(401)
    expect((await a().as(created.body.key).get("/me")).status).toBe(401)
  })

  it("refuses on the other process a session ended on one, and a member removed on one", async () => {
    const { organisation, person, info } = await withOwner(a(), "Sessions")
    const member = await join(a(), organisation.id, "member")
    // The same browser's cookie, sent to the other process.
    const onB = (who: Person, path: string) =>
      fetch(`${b().url}/settings/v1/organisations/${organisation.id}${path}`, { headers: { cookie: who.cookie()! } })
    expect((await onB(person, "/users")).status).toBe(200)
    expect((await onB(member.person, "/keys")).status).toBe(200)

    const removed = await person.settings(organisation.id).delete(`/users/${member.userId}`)
    expect(removed.status, removed.text).toBe(204)
    expect((await onB(member.person, "/keys")).status).toBe(404)

    const ended = await person.auth.delete(`/sessions/${info.session.id}`)
    expect(ended.status, ended.text).toBe(204)
    expect((await onB(person, "/users")).status).toBe(401)
  })
})
