/**
 * An organisation's settings as its own people manage them, under
 * `/settings/v1/organisations/{id}`: the settings document, API keys, webhooks, people,
 * invitations, the roles and the audit trail. Every route needs the session cookie of a person who
 * belongs to the organisation: anyone else, and an organisation that does not exist, get 404. What
 * a person may do there is their role's (`People.MATRIX`), checked by the `People` service; a write
 * is refused from another site (`SessionGuard`). Each change is audited with the person as actor.
 */
import { Access, Errors, Organisation, People, Settings, Webhooks } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { type Area, named } from "../Area.js"
import { created, noContent, ok } from "../Reply.js"
import { member, route, type SessionGuard } from "../Route.js"
import { CREATE_SUMMARY, createErrors, type HookCaller, hookActionRoutes } from "./hooks.js"

const tag = "settings"
const ORGANISATION = "/organisations/{id}"

/** What the settings screen shows of the roles: each, and what each may do. */
const RoleRights = z.object({ owner: z.boolean(), admin: z.boolean(), member: z.boolean() })
const ACTIONS = Object.keys(People.MATRIX) as [People.Action, ...Array<People.Action>]
export const RoleMatrix = z.object({
  roles: z.array(People.Role),
  matrix: z
    .record(z.enum(ACTIONS), RoleRights)
    .describe(
      "what each role may do: settings:read, settings:write, hooks:manage, keys:manage_any (any key), keys:manage_own (keys the person made, with at most read and write), people:invite, audit:read. Only an owner makes, unmakes or removes an owner; the last owner can neither leave nor be demoted"
    )
})

const ROLES = { roles: People.Role.options, matrix: People.MATRIX }

const withPeople = <A, E>(act: (people: People.People["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(People.People, act)

const notHere = () => new Errors.NotFound({ detail: "no such hook" })

/** The owner of a key of the organisation, for its hooks; a key of another organisation does not exist here. */
const keyOwner = (principal: People.MemberPrincipal, keyId: Access.KeyId) =>
  Effect.flatMap(Webhooks.Webhooks, (hooks) => hooks.ownerOfKey(keyId)).pipe(
    Effect.filterOrFail(
      (owner) => owner.organisationId === principal.organisationId,
      () => new Errors.NotFound({ detail: "no such key" })
    )
  )

/** A hook of one of the organisation's keys, as a person there may act on it: changes need `hooks:manage`. */
const bySession: HookCaller<SessionGuard<true>, "forbidden"> = {
  tag,
  operationId: (name) => `settings${name[0]!.toUpperCase()}${name.slice(1)}`,
  guard: () => member,
  summary: (text) => `A hook of one of the organisation's keys: ${text}`,
  path: (rest) => `${ORGANISATION}/hooks/{hook_id}${rest}`,
  refusals: ["forbidden"],
  hook: (principal, params, write) =>
    Effect.gen(function* () {
      yield* (yield* People.People).require(principal, write ? "hooks:manage" : "settings:read")
      const hookId = params.hook_id as Webhooks.HookId
      const owner = yield* (yield* Webhooks.Webhooks).ownerOfHook(hookId)
      if (owner.organisationId !== principal.organisationId) return yield* notHere()
      return { hookId, owner, by: People.actorOf(principal) }
    })
}

const params = { id: Organisation.OrganisationId }

export const settingsRoutes = [
  route({
    method: "GET",
    path: ORGANISATION,
    params,
    operationId: "settingsGetOrganisation",
    tag,
    guard: member,
    summary: "The organisation with its settings document",
    success: { status: 200, schema: Settings.Organisation, description: "the organisation" },
    errors: ["not_found"],
    handle: ({ principal }) => withPeople((people) => people.organisation(principal)).pipe(Effect.map(ok))
  }),
  route({
    method: "PUT",
    path: `${ORGANISATION}/settings`,
    params,
    operationId: "settingsReplaceSettings",
    tag,
    guard: member,
    summary:
      "Replace the settings document, as PUT /admin/v1/organisations/{id}/settings does (owners and admins). Removing a stage or record field still in use is 409 in_use",
    body: Settings.SettingsInput,
    success: { status: 200, schema: Settings.Organisation, description: "the organisation" },
    errors: ["not_found", "forbidden", "validation_failed", "in_use"],
    handle: ({ principal, body }) =>
      withPeople((people) => people.replaceSettings(principal, body)).pipe(Effect.map(ok))
  }),
  route({
    method: "GET",
    path: `${ORGANISATION}/keys`,
    params,
    operationId: "settingsListKeys",
    tag,
    guard: member,
    summary:
      "The organisation's API keys, revoked ones too, newest first, with who made each and when it was last used. The key itself is never shown again",
    query: Access.KeyListQuery,
    success: { status: 200, schema: Access.KeyPage, description: "a page of keys" },
    errors: ["not_found", "validation_failed"],
    handle: ({ principal, query }) => withPeople((people) => people.keys(principal, query)).pipe(Effect.map(ok))
  }),
  route({
    method: "POST",
    path: `${ORGANISATION}/keys`,
    params,
    operationId: "settingsCreateKey",
    tag,
    guard: member,
    summary:
      "Create an API key; the key itself is in this answer only. A member's key may hold only read and write (else 403 scope_not_allowed)",
    body: Access.KeyCreate,
    success: { status: 201, schema: Access.CreatedKey, description: "the key, shown once" },
    errors: ["not_found", "validation_failed", "scope_not_allowed"],
    handle: ({ principal, body }) => withPeople((people) => people.createKey(principal, body)).pipe(Effect.map(created))
  }),
  route({
    method: "DELETE",
    path: `${ORGANISATION}/keys/{key_id}`,
    params: { ...params, key_id: Access.KeyId },
    operationId: "settingsRevokeKey",
    tag,
    guard: member,
    summary:
      "Revoke a key at once, on every process. Owners and admins revoke any key; a member only the keys they made (else 403 forbidden)",
    success: { status: 204, description: "revoked" },
    errors: ["not_found", "forbidden"],
    handle: ({ principal, params }) =>
      withPeople((people) => people.revokeKey(principal, params.key_id)).pipe(Effect.as(noContent))
  }),
  route({
    method: "GET",
    path: `${ORGANISATION}/apps`,
    params,
    operationId: "settingsListApps",
    tag,
    guard: member,
    summary:
      "Connected apps: the assistants people connected through the MCP endpoint's authorization (OAuth), revoked ones too, newest first, each with its client, scopes, who connected it and when it last called",
    query: Access.AppListQuery,
    success: { status: 200, schema: Access.AppPage, description: "a page of connected apps" },
    errors: ["not_found", "validation_failed"],
    handle: ({ principal, query }) => withPeople((people) => people.apps(principal, query)).pipe(Effect.map(ok))
  }),
  route({
    method: "DELETE",
    path: `${ORGANISATION}/apps/{app_id}`,
    params: { ...params, app_id: Access.KeyId },
    operationId: "settingsRevokeApp",
    tag,
    guard: member,
    summary:
      "Revoke a connected app at once, on every process: its access and refresh tokens stop working. Owners and admins revoke any; a member only the apps they connected (else 403 forbidden)",
    success: { status: 204, description: "revoked" },
    errors: ["not_found", "forbidden"],
    handle: ({ principal, params }) =>
      withPeople((people) => people.revokeKey(principal, params.app_id)).pipe(Effect.as(noContent))
  }),
  route({
    method: "POST",
    path: `${ORGANISATION}/keys/{key_id}/hooks`,
    params: { ...params, key_id: Access.KeyId },
    operationId: "settingsCreateHook",
    tag,
    guard: member,
    summary: `Subscribe a webhook for one of the organisation's live keys (as POST /api/v1/hooks with that key; owners and admins): ${CREATE_SUMMARY}`,
    body: Webhooks.HookCreate,
    success: { status: 201, schema: Webhooks.HookWithSecret, description: "the subscription with its secret" },
    errors: ["not_found", "forbidden", ...createErrors],
    handle: ({ principal, params, body }) =>
      Effect.gen(function* () {
        yield* (yield* People.People).require(principal, "hooks:manage")
        const owner = yield* keyOwner(principal, params.key_id)
        return created(yield* (yield* Webhooks.Webhooks).create(owner, body, People.actorOf(principal)))
      })
  }),
  route({
    method: "GET",
    path: `${ORGANISATION}/keys/{key_id}/hooks`,
    params: { ...params, key_id: Access.KeyId },
    operationId: "settingsListHooks",
    tag,
    guard: member,
    summary: "A live key's webhook subscriptions, newest first",
    query: Webhooks.HookListQuery,
    success: { status: 200, schema: Webhooks.HookPage, description: "a page of subscriptions" },
    errors: ["not_found", "validation_failed"],
    handle: ({ principal, params, query }) =>
      Effect.gen(function* () {
        const owner = yield* keyOwner(principal, params.key_id)
        return ok(yield* (yield* Webhooks.Webhooks).list(owner, query))
      })
  }),
  route({
    method: "GET",
    path: `${ORGANISATION}/hooks/{hook_id}`,
    params: { ...params, hook_id: Webhooks.HookId },
    operationId: "settingsGetHook",
    tag,
    guard: member,
    summary: "A webhook subscription of one of the organisation's keys",
    success: { status: 200, schema: Webhooks.Hook, description: "the subscription" },
    errors: ["not_found", "forbidden"],
    handle: ({ principal, params }) =>
      Effect.flatMap(bySession.hook(principal, params, false), ({ owner, hookId }) =>
        Effect.flatMap(Webhooks.Webhooks, (hooks) => hooks.get(owner, hookId))
      ).pipe(Effect.map(ok))
  }),
  route({
    method: "PATCH",
    path: `${ORGANISATION}/hooks/{hook_id}`,
    params: { ...params, hook_id: Webhooks.HookId },
    operationId: "settingsUpdateHook",
    tag,
    guard: member,
    summary:
      "Disable a subscription (`active: false`) or enable it again (`active: true`: its failure streak and pause start afresh), as PATCH /api/v1/hooks/{id} does (owners and admins)",
    body: Webhooks.HookPatch,
    patch: true,
    success: { status: 200, schema: Webhooks.Hook, description: "the subscription" },
    errors: ["not_found", "forbidden", "validation_failed", "no_fields_to_update"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(bySession.hook(principal, params, true), ({ owner, hookId, by }) =>
        Effect.flatMap(Webhooks.Webhooks, (hooks) => hooks.update(owner, hookId, body, by))
      ).pipe(Effect.map(ok))
  }),
  ...hookActionRoutes(bySession),
  route({
    method: "GET",
    path: `${ORGANISATION}/users`,
    params,
    operationId: "settingsListUsers",
    tag,
    guard: member,
    summary: "The organisation's people with their roles, oldest member first",
    query: People.MemberListQuery,
    success: { status: 200, schema: People.MemberPage, description: "a page of people" },
    errors: ["not_found", "validation_failed"],
    handle: ({ principal, query }) => withPeople((people) => people.members(principal, query)).pipe(Effect.map(ok))
  }),
  route({
    method: "PATCH",
    path: `${ORGANISATION}/users/{user_id}`,
    params: { ...params, user_id: People.AccountId },
    operationId: "settingsChangeRole",
    tag,
    guard: member,
    summary:
      "Change a person's role (owners and admins; only an owner makes or unmakes an owner: 403 owner_only). The last owner cannot be demoted: 409 last_owner",
    body: People.RoleChange,
    success: { status: 200, schema: People.Member, description: "the person with their new role" },
    errors: ["not_found", "forbidden", "owner_only", "last_owner", "validation_failed"],
    handle: ({ principal, params, body }) =>
      withPeople((people) => people.changeRole(principal, params.user_id, body.role)).pipe(Effect.map(ok))
  }),
  route({
    method: "DELETE",
    path: `${ORGANISATION}/users/{user_id}`,
    params: { ...params, user_id: People.AccountId },
    operationId: "settingsRemoveUser",
    tag,
    guard: member,
    summary:
      "Remove a person from the organisation, or leave it (your own id). Owners and admins remove others; only an owner removes an owner; the last owner cannot leave: 409 last_owner. Their keys stay; the assistants they connected (Connected apps) are revoked",
    success: { status: 204, description: "removed" },
    errors: ["not_found", "forbidden", "owner_only", "last_owner"],
    handle: ({ principal, params }) =>
      withPeople((people) => people.removeMember(principal, params.user_id)).pipe(Effect.as(noContent))
  }),
  route({
    method: "GET",
    path: `${ORGANISATION}/invitations`,
    params,
    operationId: "settingsListInvitations",
    tag,
    guard: member,
    summary: "The organisation's invitations, newest first, with their status (owners and admins)",
    query: People.InvitationListQuery,
    success: { status: 200, schema: People.InvitationPage, description: "a page of invitations" },
    errors: ["not_found", "forbidden", "validation_failed"],
    handle: ({ principal, query }) => withPeople((people) => people.invitations(principal, query)).pipe(Effect.map(ok))
  }),
  route({
    method: "POST",
    path: `${ORGANISATION}/invitations`,
    params,
    operationId: "settingsCreateInvitation",
    tag,
    guard: member,
    summary: `Invite an address with a role (owners and admins; an owner only by an owner: 403 owner_only). The accept link is mailed and in this answer only; it lasts ${People.INVITATION_MS / 86_400_000} days. 409 already_member when the address belongs to the organisation`,
    body: People.InvitationCreate,
    success: { status: 201, schema: People.CreatedInvitation, description: "the invitation with its accept link" },
    errors: ["not_found", "forbidden", "owner_only", "already_member", "validation_failed"],
    handle: ({ principal, body }) => withPeople((people) => people.inviteAs(principal, body)).pipe(Effect.map(created))
  }),
  route({
    method: "DELETE",
    path: `${ORGANISATION}/invitations/{invitation_id}`,
    params: { ...params, invitation_id: People.InvitationId },
    operationId: "settingsRevokeInvitation",
    tag,
    guard: member,
    summary: "Revoke a pending invitation: its link stops working at once",
    success: { status: 204, description: "revoked" },
    errors: ["not_found", "forbidden", "owner_only"],
    handle: ({ principal, params }) =>
      withPeople((people) => people.revokeInvitation(principal, params.invitation_id)).pipe(Effect.as(noContent))
  }),
  route({
    method: "GET",
    path: `${ORGANISATION}/roles`,
    params,
    operationId: "settingsListRoles",
    tag,
    guard: member,
    summary: "The roles and what each may do",
    success: { status: 200, schema: RoleMatrix, description: "the roles and their rights" },
    errors: ["not_found"],
    handle: () => Effect.succeed(ok(ROLES))
  }),
  route({
    method: "GET",
    path: `${ORGANISATION}/audit`,
    params,
    operationId: "settingsListAudit",
    tag,
    guard: member,
    summary: `The audit trail: every change of access or configuration (keys, hooks, settings, people, invitations, sign-ins and failed ones, sessions ended) with its actor, time, address and a summary, newest first; kept ${People.AUDIT_RETENTION_DAYS} days (owners and admins)`,
    query: People.AuditListQuery,
    success: { status: 200, schema: People.AuditPage, description: "a page of the audit trail" },
    errors: ["not_found", "forbidden", "validation_failed"],
    handle: ({ principal, query }) => withPeople((people) => people.audit(principal, query)).pipe(Effect.map(ok))
  })
]

export const settingsArea: Area = {
  settings: settingsRoutes,
  schemaNames: [
    [RoleMatrix, { input: "RoleMatrix", output: "RoleMatrix" }],
    ...named(
      People,
      "Member",
      "MemberPage",
      "RoleChange",
      "Invitation",
      "InvitationPage",
      "InvitationCreate",
      "InvitationStatus",
      "CreatedInvitation",
      "AuditEntry",
      "AuditPage",
      "ActorKind"
    ),
    ...named(Access, "AppSummary", "AppPage")
  ]
}
