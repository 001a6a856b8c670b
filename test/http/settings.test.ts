/**
 * The settings API of an organisation's people (`/settings/v1/organisations/{id}`) through the real
 * server: every route behind the session, each organisation closed to everyone else's people, and
 * what each role may do there with the settings document, webhooks, people and invitations.
 */
import { People } from "@crm/core"
import { Api } from "@crm/http"
import { describe, expect, it } from "vitest"
import { connectApp } from "../support/apps.js"
import { join, PASSWORD, uniqueEmail, withOwner } from "../support/people.js"
import { checkedFetch } from "../support/responseCheck.js"
import type { Client, Response } from "../support/server.js"
import { onEveryStore } from "../support/suite.js"

const PUBLIC_TARGET = "https://1.1.1.1/hooks/crm"

/** The routes of the settings API, and those of `/auth/v1` that need a session. */
const settingsRoutes = Api.table.filter((mounted) => mounted.template.startsWith("/settings/v1/"))
const sessionRoutes = Api.table.filter((mounted) => mounted.route.guard.kind === "session")

/** A route's path with its parameters filled in (`{id}` the organisation, the rest from `ids`). */
const pathOf = (template: string, ids: Record<string, string>) =>
  template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const id = ids[name]
    if (id === undefined) throw new Error(`no id for {${name}} in ${template}`)
    return id
  })

/** A body each write would take, so that what answers is the organisation's check, not the body's. */
const bodyOf = (method: string, path: string): unknown => {
  if (method === "GET" || method === "DELETE") return undefined
  if (path.endsWith("/hooks")) return { target_url: PUBLIC_TARGET, events: ["contact.created"] }
  if (/\/users\/[^/]+$/.test(path)) return { role: "member" }
  if (/\/hooks\/[^/]+$/.test(path)) return { active: false }
  if (path.endsWith("/keys")) return { name: "intruder", scopes: ["read"] }
  if (path.endsWith("/invitations")) return { email: "intruder@example.com", role: "member" }
  return {}
}

const call = (client: Client, method: string, path: string): Promise<Response> => {
  const body = bodyOf(method, path)
  return client.request(method, path, body === undefined ? {} : { body })
}

const errorOf = (response: Response) => ({ status: response.status, error: response.body?.error })

onEveryStore("settings API", (server) => {
  it("answers every settings and session route 401 session_required without a session cookie, or with a bogus one", async () => {
    expect(settingsRoutes.length).toBeGreaterThanOrEqual(20)
    const ids = {
      id: crypto.randomUUID(),
      key_id: crypto.randomUUID(),
      hook_id: crypto.randomUUID(),
      app_id: crypto.randomUUID()
    }
    const filled = {
      ...ids,
      user_id: crypto.randomUUID(),
      invitation_id: crypto.randomUUID(),
      delivery_id: crypto.randomUUID()
    }
    for (const mounted of sessionRoutes) {
      const method = mounted.route.method
      const path = pathOf(mounted.template, filled)
      for (const cookie of [undefined, `crm_session=${"A".repeat(43)}`, "crm_session=;;;=", 'crm_session="\\"']) {
        const answer = await checkedFetch(`${server().url}${path}`, {
          method,
          headers: { "content-type": "application/json", ...(cookie === undefined ? {} : { cookie }) },
          ...(method === "GET" ? {} : { body: "{}" })
        })
        expect(
          { status: answer.status, error: ((await answer.json()) as any).error },
          `${method} ${path} with ${cookie}`
        ).toEqual({ status: 401, error: "session_required" })
      }
    }
  })

  it("keeps an organisation closed to the people of another: 404 for its every settings path", async () => {
    const a = await withOwner(server(), "Org A")
    const b = await withOwner(server(), "Org B")
    const bSettings = b.person.settings(b.organisation.id)
    const key = await bSettings.post("/keys", { name: "B's key", scopes: ["read", "write"] })
    const hook = await bSettings.post(`/keys/${key.body.id}/hooks`, {
      target_url: PUBLIC_TARGET,
      events: ["contact.created"]
    })
    expect(hook.status).toBe(201)
    const invitation = await bSettings.post("/invitations", { email: uniqueEmail("b-invitee"), role: "member" })
    const app = await connectApp(server(), b.organisation.id, b, {
      clientId: "https://assistant.example/client.json",
      clientName: "B's assistant",
      scopes: ["read"]
    })
    const ids = {
      app_id: app.id,
      key_id: key.body.id,
      hook_id: hook.body.id,
      user_id: b.userId,
      invitation_id: invitation.body.id,
      delivery_id: crypto.randomUUID()
    }
    const asA = server().person()
    await asA.signIn(a.email, PASSWORD)
    const relative = (template: string, organisationId: string) =>
      pathOf(template, { ...ids, id: organisationId }).slice(
        "/settings/v1/organisations/".length + organisationId.length
      )

    for (const mounted of settingsRoutes) {
      const method = mounted.route.method
      // B's organisation, by A's owner: as if it did not exist, whatever the route.
      const intoB = await call(asA.settings(b.organisation.id), method, relative(mounted.template, b.organisation.id))
      expect(errorOf(intoB), `${method} ${mounted.template} into B`).toEqual({ status: 404, error: "not_found" })
      // B's key, hook, person or invitation named under A's own organisation: not there either.
      if (/\{(key_id|hook_id|user_id|invitation_id)\}/.test(mounted.template)) {
        const underA = await call(
          a.person.settings(a.organisation.id),
          method,
          relative(mounted.template, a.organisation.id)
        )
        expect(errorOf(underA), `${method} ${mounted.template} under A`).toEqual({ status: 404, error: "not_found" })
      }
    }
    // An organisation that does not exist answers the same.
    expect(errorOf(await a.person.settings(crypto.randomUUID()).get(""))).toEqual({ status: 404, error: "not_found" })
    // The ids were B's to read: B's owner reads each.
    for (const mounted of settingsRoutes.filter((candidate) => candidate.route.method === "GET")) {
      const own = await bSettings.get(relative(mounted.template, b.organisation.id))
      expect(own.status, `GET ${mounted.template} by B`).toBe(200)
    }
    // Nothing of B's changed.
    expect((await bSettings.get(`/hooks/${hook.body.id}`)).body.active).toBe(true)
    expect((await bSettings.get("/keys")).body.data.find((row: any) => row.id === key.body.id).revoked_at).toBeNull()
  })

  it("keeps the last owner: neither demoted nor gone until another owner is made", async () => {
    const { organisation, person: owner, userId } = await withOwner(server())
    const settings = owner.settings(organisation.id)
    const demoted = await settings.patch(`/users/${userId}`, { role: "admin" })
    expect(errorOf(demoted)).toEqual({ status: 409, error: "last_owner" })
    expect(errorOf(await settings.delete(`/users/${userId}`))).toEqual({ status: 409, error: "last_owner" })

    const second = await join(server(), organisation.id, "admin", { by: owner })
    expect((await settings.patch(`/users/${second.userId}`, { role: "owner" })).body).toMatchObject({ role: "owner" })
    expect((await settings.patch(`/users/${userId}`, { role: "admin" })).body).toMatchObject({ role: "admin" })
    // The one owner left is the last again.
    const secondSettings = second.person.settings(organisation.id)
    expect(errorOf(await secondSettings.delete(`/users/${second.userId}`))).toEqual({
      status: 409,
      error: "last_owner"
    })
    const trail = (await secondSettings.get("/audit")).body.data
    expect(trail.filter((entry: any) => entry.action === "member.role_changed")).toHaveLength(2)
  })

  it("holds people to their roles: members read, admins manage all but owners, owners everything", async () => {
    const { organisation, person: owner } = await withOwner(server())
    const admin = await join(server(), organisation.id, "admin", { by: owner })
    const member = await join(server(), organisation.id, "member", { by: owner })
    const asAdmin = admin.person.settings(organisation.id)
    const asMember = member.person.settings(organisation.id)

    const roles = await asMember.get("/roles")
    expect(roles.status).toBe(200)
    expect(roles.body).toEqual({ roles: ["owner", "admin", "member"], matrix: People.MATRIX })

    const users = await asMember.get("/users")
    expect(users.status).toBe(200)
    expect(users.body.data.map((row: any) => row.role)).toEqual(["owner", "admin", "member"])

    // The settings document: everyone reads it, owners and admins replace it.
    const read = await asMember.get("")
    expect(read.status).toBe(200)
    const document = { ...read.body.settings, timezone: "Europe/Prague" }
    expect(errorOf(await asMember.put("/settings", document))).toEqual({ status: 403, error: "forbidden" })
    const replaced = await asAdmin.put("/settings", document)
    expect(replaced.status).toBe(200)
    expect(replaced.body.settings.timezone).toBe("Europe/Prague")

    // People: a member changes no one; an admin changes members and admins, never an owner.
    expect(errorOf(await asMember.patch(`/users/${admin.userId}`, { role: "member" }))).toEqual({
      status: 403,
      error: "forbidden"
    })
    expect(errorOf(await asAdmin.patch(`/users/${member.userId}`, { role: "owner" }))).toEqual({
      status: 403,
      error: "owner_only"
    })
    // Only an owner invites an owner, and only an owner removes one.
    const coOwner = await join(server(), organisation.id, "owner", { by: owner })
    expect(errorOf(await asAdmin.delete(`/users/${coOwner.userId}`))).toEqual({ status: 403, error: "owner_only" })
    expect(errorOf(await asAdmin.patch(`/users/${coOwner.userId}`, { role: "admin" }))).toEqual({
      status: 403,
      error: "owner_only"
    })
    expect((await asAdmin.patch(`/users/${member.userId}`, { role: "admin" })).body.role).toBe("admin")
    expect((await asAdmin.patch(`/users/${member.userId}`, { role: "member" })).body.role).toBe("member")

    // Invitations: members neither list nor make them; an admin invites members and admins, not owners.
    expect(errorOf(await asMember.get("/invitations"))).toEqual({ status: 403, error: "forbidden" })
    expect(errorOf(await asMember.post("/invitations", { email: uniqueEmail("x"), role: "member" }))).toEqual({
      status: 403,
      error: "forbidden"
    })
    expect(errorOf(await asAdmin.post("/invitations", { email: uniqueEmail("x"), role: "owner" }))).toEqual({
      status: 403,
      error: "owner_only"
    })
    expect(errorOf(await asAdmin.post("/invitations", { email: member.email, role: "member" }))).toEqual({
      status: 409,
      error: "already_member"
    })
    const pending = await asAdmin.post("/invitations", { email: uniqueEmail("pending"), role: "admin" })
    expect(pending.status).toBe(201)
    const listed = await asAdmin.get("/invitations")
    expect(listed.body.data[0]).toMatchObject({ id: pending.body.id, status: "pending" })
    expect(listed.text).not.toContain(pending.body.accept_url)

    // A member leaves; their session no longer opens the organisation, and their keys stay.
    const memberKey = await asMember.post("/keys", { name: "member's", scopes: ["read"] })
    expect((await asMember.delete(`/users/${member.userId}`)).status).toBe(204)
    expect(errorOf(await asMember.get("/keys"))).toEqual({ status: 404, error: "not_found" })
    expect((await member.person.auth.get("/session")).body.organisations).toEqual([])
    const keys = (await asAdmin.get("/keys")).body.data
    expect(keys.find((row: any) => row.id === memberKey.body.id)).toMatchObject({ revoked_at: null })
    expect(errorOf(await asAdmin.delete(`/users/${member.userId}`))).toEqual({ status: 404, error: "not_found" })
  })

  it("manages a key's webhooks in the settings, as owners and admins; members read them", async () => {
    const { organisation, person: owner } = await withOwner(server())
    const member = await join(server(), organisation.id, "member", { by: owner })
    const settings = owner.settings(organisation.id)
    const asMember = member.person.settings(organisation.id)
    const key = await settings.post("/keys", { name: "hooked", scopes: ["read", "write"] })

    expect(
      errorOf(await asMember.post(`/keys/${key.body.id}/hooks`, { target_url: PUBLIC_TARGET, events: ["deal.won"] }))
    ).toEqual({
      status: 403,
      error: "forbidden"
    })
    const created = await settings.post(`/keys/${key.body.id}/hooks`, {
      target_url: PUBLIC_TARGET,
      events: ["deal.won"]
    })
    expect(created.status).toBe(201)
    expect(created.body.secret).toMatch(/^whsec_/)
    const hookId = created.body.id
    // The key's own view (the REST API) sees the hook the settings made for it.
    const viaKey = await server().as(key.body.key).get(`/hooks/${hookId}`)
    expect(viaKey.body).toMatchObject({ id: hookId, target_url: PUBLIC_TARGET })

    expect((await asMember.get(`/keys/${key.body.id}/hooks`)).body.data.map((row: any) => row.id)).toEqual([hookId])
    expect((await asMember.get(`/hooks/${hookId}`)).status).toBe(200)
    expect((await asMember.get(`/hooks/${hookId}/deliveries`)).body.data).toEqual([])
    for (const [method, path, body] of [
      ["PATCH", `/hooks/${hookId}`, { active: false }],
      ["POST", `/hooks/${hookId}/rotate-secret`, undefined],
      ["POST", `/hooks/${hookId}/deliveries/${crypto.randomUUID()}/redeliver`, undefined],
      ["DELETE", `/hooks/${hookId}`, undefined]
    ] as const) {
      const refused = await asMember.request(method, path, body === undefined ? {} : { body })
      expect(errorOf(refused), `${method} ${path}`).toEqual({ status: 403, error: "forbidden" })
    }

    const disabled = await settings.patch(`/hooks/${hookId}`, { active: false })
    expect(disabled.body.active).toBe(false)
    expect((await settings.patch(`/hooks/${hookId}`, { active: true })).body.active).toBe(true)
    const rotated = await settings.post(`/hooks/${hookId}/rotate-secret`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.secret).not.toBe(created.body.secret)
    expect(errorOf(await settings.post(`/hooks/${hookId}/deliveries/${crypto.randomUUID()}/redeliver`))).toEqual({
      status: 404,
      error: "not_found"
    })
    expect((await settings.delete(`/hooks/${hookId}`)).status).toBe(204)
    expect(errorOf(await settings.get(`/hooks/${hookId}`))).toEqual({ status: 404, error: "not_found" })

    // A revoked key's hooks are no longer reached through it.
    expect((await settings.delete(`/keys/${key.body.id}`)).status).toBe(204)
    expect(errorOf(await settings.get(`/keys/${key.body.id}/hooks`))).toEqual({ status: 404, error: "not_found" })

    const trail = (await settings.get("/audit")).body.data
    const hookSteps = trail
      .filter((entry: any) => entry.action.startsWith("hook."))
      .map((entry: any) => [entry.action, entry.actor.label])
      .reverse()
    const ownerEmail = (await owner.auth.get("/session")).body.user.email
    expect(hookSteps).toEqual([
      ["hook.created", ownerEmail],
      ["hook.updated", ownerEmail],
      ["hook.updated", ownerEmail],
      ["hook.secret_rotated", ownerEmail],
      ["hook.deleted", ownerEmail]
    ])
    expect(JSON.stringify(trail)).not.toContain(created.body.secret)
    expect(JSON.stringify(trail)).not.toContain(rotated.body.secret)
  })
})

describe("the settings and auth APIs in the OpenAPI document", () => {
  const document = Api.openApiDocument() as any
  const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation }))
  )

  it("declares the session cookie and the CSRF token as security schemes", () => {
    expect(document.components.securitySchemes).toMatchObject({
      sessionCookie: { type: "apiKey", in: "cookie", name: "crm_session" },
      csrfToken: { type: "apiKey", in: "header", name: "X-CSRF-Token" }
    })
  })

  it("puts every settings route and session route behind the cookie, and their writes behind the token too", () => {
    const guarded = operations.filter(
      ({ path }) =>
        path.startsWith("/settings/v1/") ||
        ["/auth/v1/session", "/auth/v1/sessions", "/auth/v1/sessions/{id}", "/auth/v1/sign-out"].includes(path)
    )
    expect(guarded).toHaveLength(sessionRoutes.length)
    for (const { path, method, operation } of guarded) {
      const writing = method !== "get"
      expect(operation.security, `${method} ${path}`).toEqual([
        writing ? { sessionCookie: [], csrfToken: [] } : { sessionCookie: [] }
      ])
      expect(operation.responses["401"].description, `${method} ${path}`).toContain("session_required")
      if (writing) expect(operation.responses["403"].description, `${method} ${path}`).toContain("csrf_refused")
      expect(operation.parameters?.some((parameter: any) => parameter.name === "Idempotency-Key") ?? false).toBe(false)
    }
  })

  it("opens signing in to anyone, refusing another site's writes", () => {
    for (const path of [
      "/auth/v1/sign-in",
      "/auth/v1/sign-in/link",
      "/auth/v1/password-reset",
      "/auth/v1/invitations/{token}/accept"
    ]) {
      const operation = document.paths[path].post
      expect(operation.security, path).toEqual([])
      expect(operation.tags).toEqual(["auth"])
      expect(operation.responses["403"].description, path).toBe("csrf_refused")
    }
    expect(document.paths["/auth/v1/sign-in"].post.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/SessionInfo"
    })
  })

  it("names the people's shapes, so that a client generator types them", () => {
    for (const name of [
      "SessionInfo",
      "SessionList",
      "Member",
      "MemberPage",
      "Invitation",
      "CreatedInvitation",
      "AuditPage",
      "RoleMatrix"
    ]) {
      expect(document.components.schemas[name], name).toBeDefined()
    }
    expect(
      document.paths["/admin/v1/organisations/{id}/invitations"].post.responses["201"].content["application/json"]
        .schema
    ).toEqual({
      $ref: "#/components/schemas/CreatedInvitation"
    })
  })
})
