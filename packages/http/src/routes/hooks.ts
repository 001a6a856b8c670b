/**
 * REST hooks: a key's own webhook subscriptions and their deliveries, plus the admin API's view: a
 * key's hooks, and any live key's hook by its id.
 */
import { Access, type Errors, Webhooks } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { created, noContent, ok } from "../Reply.js"
import { type AdminGuard, admin, type Guard, type KeyGuard, type PrincipalOf, read, route, write } from "../Route.js"

const tag = "hooks"

/** Hooks belong to the key that made them: every route sees only its caller's own. */
const ownerOf = (principal: Access.Principal): Webhooks.HookOwner => ({
  organisationId: principal.organisation.id,
  keyId: principal.key.id
})

const createErrors = ["validation_failed", "unknown_event", "invalid_target_url", "too_many_hooks"] as const

const CREATE_SUMMARY = `Subscribe a target URL to events; the secret is in this answer only. At most ${Webhooks.MAX_HOOKS_PER_KEY} per key; the target must be a public http(s) address (https when the CRM is)`

/**
 * Who acts on a hook named by id: its own key (`/api/v1`, read or write scope) or the admin
 * (`/admin/v1`, any live key's hook). The routes below are one implementation for both.
 */
interface HookCaller<G extends Guard> {
  readonly tag: string
  readonly operationId: (name: string) => string
  readonly guard: (scope: "read" | "write") => G
  readonly summary: (text: string) => string
  readonly owner: (
    principal: PrincipalOf<G>,
    hookId: Webhooks.HookId
  ) => Effect.Effect<Webhooks.HookOwner, Errors.NotFound | Errors.StorageError, Webhooks.Webhooks>
}

const byKey: HookCaller<KeyGuard<"read" | "write">> = {
  tag,
  operationId: (name) => name,
  guard: (scope) => (scope === "read" ? read() : write),
  summary: (text) => text,
  owner: (principal) => Effect.sync(() => ownerOf(principal))
}

const byAdmin: HookCaller<AdminGuard> = {
  tag: "admin",
  operationId: (name) => `admin${name[0]!.toUpperCase()}${name.slice(1)}`,
  guard: () => admin,
  summary: (text) => `Any live key's hook, as its key would: ${text}`,
  owner: (_, hookId) => Effect.flatMap(Webhooks.Webhooks, (hooks) => hooks.ownerOfHook(hookId))
}

const hookActionRoutes = <G extends Guard>(caller: HookCaller<G>) => {
  const asOwner = <A, E>(
    principal: PrincipalOf<G>,
    hookId: Webhooks.HookId,
    act: (hooks: Context.Tag.Service<Webhooks.Webhooks>, owner: Webhooks.HookOwner) => Effect.Effect<A, E>
  ) =>
    Effect.flatMap(Webhooks.Webhooks, (hooks) =>
      Effect.flatMap(caller.owner(principal, hookId), (owner) => act(hooks, owner))
    )
  return [
    route({
      method: "DELETE",
      path: "/hooks/{id}",
      params: { id: Webhooks.HookId },
      operationId: caller.operationId("deleteHook"),
      tag: caller.tag,
      guard: caller.guard("write"),
      summary: caller.summary("Delete a subscription and its delivery history"),
      success: { status: 204, description: "deleted" },
      errors: ["not_found"],
      handle: ({ principal, params }) =>
        asOwner(principal, params.id, (hooks, owner) => hooks.remove(owner, params.id)).pipe(Effect.as(noContent))
    }),
    route({
      method: "POST",
      path: "/hooks/{id}/rotate-secret",
      params: { id: Webhooks.HookId },
      operationId: caller.operationId("rotateHookSecret"),
      tag: caller.tag,
      guard: caller.guard("write"),
      summary: caller.summary(
        "Replace the secret; the previous one keeps signing every delivery (a second v1) for 24 hours. The new secret is in this answer only"
      ),
      success: { status: 200, schema: Webhooks.HookWithSecret, description: "the subscription with its new secret" },
      errors: ["not_found"],
      handle: ({ principal, params }) =>
        asOwner(principal, params.id, (hooks, owner) => hooks.rotateSecret(owner, params.id)).pipe(Effect.map(ok))
    }),
    route({
      method: "GET",
      path: "/hooks/{id}/deliveries",
      params: { id: Webhooks.HookId },
      operationId: caller.operationId("listHookDeliveries"),
      tag: caller.tag,
      guard: caller.guard("read"),
      summary: caller.summary(
        "A subscription's deliveries with every attempt (status code, duration, response excerpt, error), newest event first"
      ),
      query: Webhooks.HookListQuery,
      success: { status: 200, schema: Webhooks.DeliveryPage, description: "a page of deliveries" },
      errors: ["not_found", "validation_failed"],
      handle: ({ principal, params, query }) =>
        asOwner(principal, params.id, (hooks, owner) => hooks.deliveries(owner, params.id, query)).pipe(Effect.map(ok))
    }),
    route({
      method: "POST",
      path: "/hooks/{id}/deliveries/{delivery_id}/redeliver",
      params: { id: Webhooks.HookId, delivery_id: Webhooks.DeliveryId },
      operationId: caller.operationId("redeliverHookDelivery"),
      tag: caller.tag,
      guard: caller.guard("write"),
      summary: caller.summary(
        "Queue a new attempt of a delivery (a failed one, typically), due at once; a pause of the subscription (`paused_until`) ends with it. A disabled subscription sends nothing: 409 `hook_disabled` (enable it first)"
      ),
      success: { status: 200, schema: Webhooks.Delivery, description: "the delivery, pending again" },
      errors: ["not_found", "hook_disabled"],
      handle: ({ principal, params }) =>
        asOwner(principal, params.id, (hooks, owner) => hooks.redeliver(owner, params.id, params.delivery_id)).pipe(
          Effect.map(ok)
        )
    })
  ]
}

export const hookRoutes = [
  route({
    method: "POST",
    path: "/hooks",
    operationId: "createHook",
    tag,
    guard: write,
    summary: CREATE_SUMMARY,
    body: Webhooks.HookCreate,
    success: { status: 201, schema: Webhooks.HookWithSecret, description: "the subscription with its secret" },
    errors: createErrors,
    handle: ({ principal, body }) =>
      Effect.flatMap(Webhooks.Webhooks, (hooks) => hooks.create(ownerOf(principal), body)).pipe(Effect.map(created))
  }),
  route({
    method: "GET",
    path: "/hooks",
    operationId: "listHooks",
    tag,
    guard: read(),
    summary: "List this key's subscriptions, newest first",
    query: Webhooks.HookListQuery,
    success: { status: 200, schema: Webhooks.HookPage, description: "a page of subscriptions" },
    errors: ["validation_failed"],
    handle: ({ principal, query }) =>
      Effect.flatMap(Webhooks.Webhooks, (hooks) => hooks.list(ownerOf(principal), query)).pipe(Effect.map(ok))
  }),
  route({
    method: "GET",
    path: "/hooks/{id}",
    params: { id: Webhooks.HookId },
    operationId: "getHook",
    tag,
    guard: read(),
    summary: "Get one of this key's subscriptions",
    success: { status: 200, schema: Webhooks.Hook, description: "the subscription" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(Webhooks.Webhooks, (hooks) => hooks.get(ownerOf(principal), params.id)).pipe(Effect.map(ok))
  }),
  route({
    method: "PATCH",
    path: "/hooks/{id}",
    params: { id: Webhooks.HookId },
    operationId: "updateHook",
    tag,
    guard: write,
    summary:
      "Disable a subscription (`active: false`; what it has pending fails) or enable it again (`active: true`; its failure streak and pause start afresh, nothing is re-queued: new events are delivered). `enabled` is accepted as another name of `active`",
    body: Webhooks.HookPatch,
    patch: true,
    success: { status: 200, schema: Webhooks.Hook, description: "the subscription" },
    errors: ["not_found", "validation_failed", "no_fields_to_update"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Webhooks.Webhooks, (hooks) => hooks.update(ownerOf(principal), params.id, body)).pipe(
        Effect.map(ok)
      )
  }),
  ...hookActionRoutes(byKey)
]

export const adminHookRoutes = [
  route({
    method: "POST",
    path: "/keys/{id}/hooks",
    params: { id: Access.KeyId },
    operationId: "adminCreateHook",
    tag: "admin",
    guard: admin,
    summary: `Subscribe a webhook for a key (as POST /hooks with that key): ${CREATE_SUMMARY}`,
    body: Webhooks.HookCreate,
    success: { status: 201, schema: Webhooks.HookWithSecret, description: "the subscription with its secret" },
    errors: ["not_found", ...createErrors],
    handle: ({ params, body }) =>
      Effect.flatMap(Webhooks.Webhooks, (hooks) =>
        Effect.flatMap(hooks.ownerOfKey(params.id), (owner) => hooks.create(owner, body))
      ).pipe(Effect.map(created))
  }),
  route({
    method: "GET",
    path: "/keys/{id}/hooks",
    params: { id: Access.KeyId },
    operationId: "adminListHooks",
    tag: "admin",
    guard: admin,
    summary: "A key's webhook subscriptions, newest first",
    query: Webhooks.HookListQuery,
    success: { status: 200, schema: Webhooks.HookPage, description: "a page of subscriptions" },
    errors: ["not_found", "validation_failed"],
    handle: ({ params, query }) =>
      Effect.flatMap(Webhooks.Webhooks, (hooks) =>
        Effect.flatMap(hooks.ownerOfKey(params.id), (owner) => hooks.list(owner, query))
      ).pipe(Effect.map(ok))
  }),
  ...hookActionRoutes(byAdmin)
]

export const hooksArea: Area = {
  api: hookRoutes,
  admin: adminHookRoutes,
  schemaNames: named(
    Webhooks,
    "Hook",
    "HookCreate",
    "HookPatch",
    "HookPage",
    "HookWithSecret",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryPage",
    "DeliveryStatus"
  )
}
