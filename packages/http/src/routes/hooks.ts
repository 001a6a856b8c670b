/**
 * REST hooks: a key's own webhook subscriptions and their deliveries, plus the admin API's view: a
 * key's hooks, and any live key's hook by its id. The settings API acts on them too, through the
 * same routes (`hookActionRoutes`), as a signed-in person of the hook's organisation.
 */
import { Access, type Errors, People, Webhooks } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import type { ErrorCode } from "../ErrorStatus.js"
import { created, noContent, ok } from "../Reply.js"
import { type AdminGuard, admin, type Guard, type KeyGuard, type PrincipalOf, read, route, write } from "../Route.js"

const tag = "hooks"

/** Hooks belong to the key that made them: every route sees only its caller's own. */
const ownerOf = (principal: Access.Principal): Webhooks.HookOwner => ({
  organisationId: principal.organisation.id,
  keyId: principal.key.id
})

export const createErrors = ["validation_failed", "unknown_event", "invalid_target_url", "too_many_hooks"] as const

export const CREATE_SUMMARY = `Subscribe a target URL to events; the secret is in this answer only. At most ${Webhooks.MAX_HOOKS_PER_KEY} per key; the target must be a public http(s) address (https when the CRM is)`

/** A hook as a caller may act on it: its id, whose it is, and who acts (for the audit trail). */
export interface HookInHand {
  readonly hookId: Webhooks.HookId
  readonly owner: Webhooks.HookOwner
  readonly by: People.Actor | undefined
}

/**
 * Who acts on a hook named by id: its own key (`/api/v1`, read or write scope), the admin
 * (`/admin/v1`, any live key's hook) or a signed-in person of the hook's organisation
 * (`/settings/v1`). The routes below are one implementation for all three.
 */
export interface HookCaller<G extends Guard, Refusal extends ErrorCode = never> {
  readonly tag: string
  readonly operationId: (name: string) => string
  readonly guard: (scope: "read" | "write") => G
  readonly summary: (text: string) => string
  /** A hook route's template from what follows the hook's id (`/hooks/{id}` and on, for keys and the admin). */
  readonly path: (rest: string) => string
  /** What the caller's own check refuses with, beside `not_found`. */
  readonly refusals: ReadonlyArray<Refusal>
  /** The hook the path names, as the caller may act on it (`write`: to change it). */
  readonly hook: (
    principal: PrincipalOf<G>,
    params: Readonly<Record<string, string>>,
    write: boolean
  ) => Effect.Effect<
    HookInHand,
    Errors.NotFound | Errors.StorageError | { readonly code: Refusal; readonly detail: unknown },
    Webhooks.Webhooks | People.People
  >
}

const byKey: HookCaller<KeyGuard<"read" | "write">> = {
  tag,
  operationId: (name) => name,
  guard: (scope) => (scope === "read" ? read() : write),
  summary: (text) => text,
  path: (rest) => `/hooks/{id}${rest}`,
  refusals: [],
  hook: (principal, params) =>
    Effect.sync(() => ({ hookId: params.id as Webhooks.HookId, owner: ownerOf(principal), by: undefined }))
}

const byAdmin: HookCaller<AdminGuard> = {
  tag: "admin",
  operationId: (name) => `admin${name[0]!.toUpperCase()}${name.slice(1)}`,
  guard: () => admin,
  summary: (text) => `Any live key's hook, as its key would: ${text}`,
  path: (rest) => `/hooks/{id}${rest}`,
  refusals: [],
  hook: (client, params) =>
    Effect.flatMap(Webhooks.Webhooks, (hooks) => hooks.ownerOfHook(params.id as Webhooks.HookId)).pipe(
      Effect.map((owner) => ({ hookId: params.id as Webhooks.HookId, owner, by: People.operator(client.address) }))
    )
}

export const hookActionRoutes = <G extends Guard, Refusal extends ErrorCode>(caller: HookCaller<G, Refusal>) => {
  const asOwner = <A, E>(
    principal: PrincipalOf<G>,
    params: Readonly<Record<string, string>>,
    write: boolean,
    act: (hooks: Context.Tag.Service<Webhooks.Webhooks>, hook: HookInHand) => Effect.Effect<A, E>
  ) =>
    Effect.flatMap(Webhooks.Webhooks, (hooks) =>
      Effect.flatMap(caller.hook(principal, params, write), (hook) => act(hooks, hook))
    )
  return [
    route({
      method: "DELETE",
      path: caller.path(""),
      operationId: caller.operationId("deleteHook"),
      tag: caller.tag,
      guard: caller.guard("write"),
      summary: caller.summary("Delete a subscription and its delivery history"),
      success: { status: 204, description: "deleted" },
      errors: ["not_found", ...caller.refusals],
      handle: ({ principal, params }) =>
        asOwner(principal, params, true, (hooks, hook) => hooks.remove(hook.owner, hook.hookId, hook.by)).pipe(
          Effect.as(noContent)
        )
    }),
    route({
      method: "POST",
      path: caller.path("/rotate-secret"),
      operationId: caller.operationId("rotateHookSecret"),
      tag: caller.tag,
      guard: caller.guard("write"),
      summary: caller.summary(
        "Replace the secret; the previous one keeps signing every delivery (a second v1) for 24 hours. The new secret is in this answer only"
      ),
      success: { status: 200, schema: Webhooks.HookWithSecret, description: "the subscription with its new secret" },
      errors: ["not_found", ...caller.refusals],
      handle: ({ principal, params }) =>
        asOwner(principal, params, true, (hooks, hook) => hooks.rotateSecret(hook.owner, hook.hookId, hook.by)).pipe(
          Effect.map(ok)
        )
    }),
    route({
      method: "GET",
      path: caller.path("/deliveries"),
      operationId: caller.operationId("listHookDeliveries"),
      tag: caller.tag,
      guard: caller.guard("read"),
      summary: caller.summary(
        "A subscription's deliveries with every attempt (status code, duration, response excerpt, error), newest event first"
      ),
      query: Webhooks.HookListQuery,
      success: { status: 200, schema: Webhooks.DeliveryPage, description: "a page of deliveries" },
      errors: ["not_found", "validation_failed", ...caller.refusals],
      handle: ({ principal, params, query }) =>
        asOwner(principal, params, false, (hooks, hook) => hooks.deliveries(hook.owner, hook.hookId, query)).pipe(
          Effect.map(ok)
        )
    }),
    route({
      method: "POST",
      path: caller.path("/deliveries/{delivery_id}/redeliver"),
      operationId: caller.operationId("redeliverHookDelivery"),
      tag: caller.tag,
      guard: caller.guard("write"),
      summary: caller.summary(
        "Queue a new attempt of a delivery (a failed one, typically), due at once; a pause of the subscription (`paused_until`) ends with it. A disabled subscription sends nothing: 409 `hook_disabled` (enable it first)"
      ),
      success: { status: 200, schema: Webhooks.Delivery, description: "the delivery, pending again" },
      errors: ["not_found", "hook_disabled", ...caller.refusals],
      handle: ({ principal, params }) =>
        asOwner(principal, params, true, (hooks, hook) =>
          hooks.redeliver(hook.owner, hook.hookId, params.delivery_id as Webhooks.DeliveryId, hook.by)
        ).pipe(Effect.map(ok))
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
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Webhooks.Webhooks, (hooks) =>
        Effect.flatMap(hooks.ownerOfKey(params.id), (owner) =>
          hooks.create(owner, body, People.operator(principal.address))
        )
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
