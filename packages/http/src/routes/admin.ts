/** The admin API: what the application's Settings → API screen and the `crm` command line call. */
import { Access, Settings } from "@crm/core"
import * as Effect from "effect/Effect"
import { created, noContent, ok } from "../Reply.js"
import { admin, route } from "../Route.js"

const tag = "admin"

export const adminRoutes = [
  route({
    method: "POST",
    path: "/organisations",
    operationId: "adminCreateOrganisation",
    tag,
    guard: admin,
    summary: "Create an organisation (settings completed with defaults, pipeline and stage ids assigned)",
    body: Settings.OrganisationCreate,
    success: { status: 201, schema: Settings.Organisation, description: "the organisation" },
    errors: ["validation_failed"],
    handle: ({ body }) =>
      Effect.flatMap(Access.Access, (access) => access.createOrganisation(body)).pipe(Effect.map(created))
  }),
  route({
    method: "GET",
    path: "/organisations/{id}",
    operationId: "adminGetOrganisation",
    tag,
    guard: admin,
    summary: "Get an organisation with its settings",
    success: { status: 200, schema: Settings.Organisation, description: "the organisation" },
    errors: ["not_found"],
    handle: ({ params }) =>
      Effect.flatMap(Access.Access, (access) => access.getOrganisation(params.id!)).pipe(Effect.map(ok))
  }),
  route({
    method: "PUT",
    path: "/organisations/{id}/settings",
    operationId: "adminReplaceSettings",
    tag,
    guard: admin,
    summary: "Replace the settings document (ids sent back are kept, new pipelines and stages get ids)",
    body: Settings.SettingsInput,
    success: { status: 200, schema: Settings.Organisation, description: "the organisation" },
    errors: ["not_found", "validation_failed"],
    handle: ({ params, body }) =>
      Effect.flatMap(Access.Access, (access) => access.replaceSettings(params.id!, body)).pipe(Effect.map(ok))
  }),
  route({
    method: "POST",
    path: "/organisations/{id}/keys",
    operationId: "adminCreateKey",
    tag,
    guard: admin,
    summary: "Create an API key; the key itself is in this answer only",
    body: Access.KeyCreate,
    success: { status: 201, schema: Access.CreatedKey, description: "the key, shown once" },
    errors: ["not_found", "validation_failed"],
    handle: ({ params, body }) =>
      Effect.flatMap(Access.Access, (access) => access.createKey(params.id!, body)).pipe(Effect.map(created))
  }),
  route({
    method: "DELETE",
    path: "/keys/{id}",
    operationId: "adminRevokeKey",
    tag,
    guard: admin,
    summary: "Revoke a key at once, on every process",
    success: { status: 204, description: "revoked" },
    errors: ["not_found"],
    handle: ({ params }) =>
      Effect.flatMap(Access.Access, (access) => access.revokeKey(params.id!)).pipe(Effect.as(noContent))
  })
]
