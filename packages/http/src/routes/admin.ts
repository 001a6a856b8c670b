/** The admin API: what the application's Settings → API screen and the `crm` command line call. */
import { Access, BusinessClock, Invoicing, Organisation, People, Quotes, Settings } from "@crm/core"
import * as Effect from "effect/Effect"
import { z } from "zod"
import { type Area, named } from "../Area.js"
import { created, noContent, ok } from "../Reply.js"
import { admin, route } from "../Route.js"

const tag = "admin"

const QUOTE_ACTIONS = {
  send: "Send a draft or sent quote: freezes a new numbered revision",
  accept: "Record the customer's acceptance of a sent quote (emits quote.accepted)",
  reject: "Record the customer's rejection of a sent quote (emits quote.rejected)",
  cancel: "Cancel a draft or sent quote"
} as const

const INVOICE_ACTIONS = {
  cancel: "Cancel a draft invoice",
  storno:
    "Reverse an unpaid issued invoice: a storno with negated lines from the storno series; the original is cancelled"
} as const
const INVOICE_ANSWERS = { cancel: "the cancelled invoice", storno: "the storno" } as const

const RatesImported = z.object({ imported: z.number().int() })

/** The operator as the audit trail records them: with the address the admin API was called from. */
const operatorOf = (client: People.Client): People.Actor => People.operator(client.address)

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
    handle: ({ principal, body }) =>
      Effect.flatMap(Access.Access, (access) => access.createOrganisation(body, operatorOf(principal))).pipe(
        Effect.map(created)
      )
  }),
  route({
    method: "GET",
    path: "/organisations",
    operationId: "adminListOrganisations",
    tag,
    guard: admin,
    summary:
      "List organisations, newest first: each without its settings document (GET /organisations/{id} has it), which may run to kilobytes",
    query: Access.OrganisationListQuery,
    success: { status: 200, schema: Access.OrganisationPage, description: "a page of organisations" },
    errors: ["validation_failed"],
    handle: ({ query }) =>
      Effect.flatMap(Access.Access, (access) => access.listOrganisations(query)).pipe(Effect.map(ok))
  }),
  route({
    method: "GET",
    path: "/organisations/{id}",
    params: { id: Organisation.OrganisationId },
    operationId: "adminGetOrganisation",
    tag,
    guard: admin,
    summary: "Get an organisation with its settings",
    success: { status: 200, schema: Settings.Organisation, description: "the organisation" },
    errors: ["not_found"],
    handle: ({ params }) =>
      Effect.flatMap(Access.Access, (access) => access.getOrganisation(params.id)).pipe(Effect.map(ok))
  }),
  route({
    method: "PUT",
    path: "/organisations/{id}/settings",
    params: { id: Organisation.OrganisationId },
    operationId: "adminReplaceSettings",
    tag,
    guard: admin,
    summary:
      "Replace the settings document (ids sent back are kept, new pipelines and stages get ids). Removing a stage live deals stand in (with its pipeline, or moving it to another pipeline), or a stored record field (with its type, or by making it a formula or rollup) that live records hold values of, is 409 in_use: detail {message, stages: [{pipeline_id, pipeline, stage_id, stage, deals}], record_fields: [{type_id, type_key, field, records}]} names each with how many use it, and nothing changes",
    body: Settings.SettingsInput,
    success: { status: 200, schema: Settings.Organisation, description: "the organisation" },
    errors: ["not_found", "validation_failed", "in_use"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Access.Access, (access) => access.replaceSettings(params.id, body, operatorOf(principal))).pipe(
        Effect.map(ok)
      )
  }),
  route({
    method: "POST",
    path: "/organisations/{id}/keys",
    params: { id: Organisation.OrganisationId },
    operationId: "adminCreateKey",
    tag,
    guard: admin,
    summary: "Create an API key; the key itself is in this answer only",
    body: Access.KeyCreate,
    success: { status: 201, schema: Access.CreatedKey, description: "the key, shown once" },
    errors: ["not_found", "validation_failed"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Access.Access, (access) => access.createKey(params.id, body, operatorOf(principal))).pipe(
        Effect.map(created)
      )
  }),
  route({
    method: "GET",
    path: "/organisations/{id}/keys",
    params: { id: Organisation.OrganisationId },
    operationId: "adminListKeys",
    tag,
    guard: admin,
    summary:
      "List the organisation's API keys, revoked ones too, newest first. The key itself is never shown again: only its hash is stored",
    query: Access.KeyListQuery,
    success: { status: 200, schema: Access.KeyPage, description: "a page of keys" },
    errors: ["not_found", "validation_failed"],
    handle: ({ params, query }) =>
      Effect.flatMap(Access.Access, (access) => access.listKeys(params.id, query)).pipe(Effect.map(ok))
  }),
  route({
    method: "POST",
    path: "/organisations/{id}/invitations",
    params: { id: Organisation.OrganisationId },
    operationId: "adminCreateInvitation",
    tag,
    guard: admin,
    summary: `Invite a person into the organisation with a role (its first owner, typically); they accept at the link, which is mailed to them and in this answer only, within ${People.INVITATION_MS / 86_400_000} days. 409 already_member when the address belongs to the organisation`,
    body: People.InvitationCreate,
    success: { status: 201, schema: People.CreatedInvitation, description: "the invitation with its accept link" },
    errors: ["not_found", "validation_failed", "already_member"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(People.People, (people) => people.invite(params.id, body, operatorOf(principal))).pipe(
        Effect.map(created)
      )
  }),
  route({
    method: "POST",
    path: "/organisations/{id}/clock",
    params: { id: Organisation.OrganisationId },
    operationId: "adminMoveTestClock",
    tag,
    guard: admin,
    summary:
      "Freeze or advance a test-mode organisation's business clock: exactly one of frozen_at (an instant; a frozen clock only moves forward) or advance_by (an ISO 8601 duration such as P3D or PT2H, from where the clock stands, or from the real time when it is not frozen). A frozen clock does not tick. The date jobs that fell due (sent quotes past valid_until expire, then unpaid invoices past due become overdue) run for the organisation before the answer. Keys, rate limits, idempotency and webhook retries stay on real time; record timestamps too. 409 not_test_mode for an organisation not created with test_mode: true",
    body: BusinessClock.ClockChange,
    success: { status: 200, schema: BusinessClock.ClockState, description: "the clock and what the jobs did" },
    errors: ["not_found", "validation_failed", "not_test_mode"],
    handle: ({ params, body }) =>
      Effect.flatMap(BusinessClock.BusinessClock, (clock) => clock.change(params.id, body)).pipe(Effect.map(ok))
  }),
  route({
    method: "DELETE",
    path: "/organisations/{id}/clock",
    params: { id: Organisation.OrganisationId },
    operationId: "adminResetTestClock",
    tag,
    guard: admin,
    summary:
      "Return a test-mode organisation to real time (it stays in test mode); the date jobs then due run before the answer. 409 not_test_mode for an organisation not in test mode",
    success: { status: 200, schema: BusinessClock.ClockState, description: "the clock, now on real time" },
    errors: ["not_found", "not_test_mode"],
    handle: ({ params }) =>
      Effect.flatMap(BusinessClock.BusinessClock, (clock) => clock.reset(params.id)).pipe(Effect.map(ok))
  }),
  route({
    method: "DELETE",
    path: "/keys/{id}",
    params: { id: Access.KeyId },
    operationId: "adminRevokeKey",
    tag,
    guard: admin,
    summary: "Revoke a key at once, on every process",
    success: { status: 204, description: "revoked" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(Access.Access, (access) => access.revokeKey(params.id, operatorOf(principal))).pipe(
        Effect.as(noContent)
      )
  }),
  ...(["send", "accept", "reject", "cancel"] as const).map((action) =>
    route({
      method: "POST",
      path: `/quotes/{id}/${action}`,
      params: { id: Quotes.QuoteId },
      operationId: `adminQuote${action[0]!.toUpperCase()}${action.slice(1)}`,
      tag,
      guard: admin,
      summary: QUOTE_ACTIONS[action],
      success: { status: 200, schema: Quotes.Quote, description: "the quote" },
      errors: ["not_found", "transition_not_allowed"],
      handle: ({ params }) =>
        Effect.flatMap(Quotes.Quotes, (quotes) =>
          Effect.flatMap(quotes.owner(params.id), (organisation) => quotes.transition(organisation, params.id, action))
        ).pipe(Effect.map(ok))
    })
  ),
  ...(["cancel", "storno"] as const).map((action) =>
    route({
      method: "POST",
      path: `/invoices/{id}/${action}`,
      params: { id: Invoicing.InvoiceId },
      operationId: `adminInvoice${action[0]!.toUpperCase()}${action.slice(1)}`,
      tag,
      guard: admin,
      summary: INVOICE_ACTIONS[action],
      success: {
        status: action === "storno" ? 201 : 200,
        schema: Invoicing.Invoice,
        description: INVOICE_ANSWERS[action]
      },
      errors: ["not_found", "transition_not_allowed"],
      handle: ({ params }) =>
        Effect.flatMap(Invoicing.Invoicing, (invoicing) =>
          Effect.flatMap(invoicing.owner(params.id), (organisation) => invoicing[action](organisation, params.id))
        ).pipe(Effect.map(action === "storno" ? created : ok))
    })
  ),
  route({
    method: "POST",
    path: "/exchange-rates",
    operationId: "adminImportExchangeRates",
    tag,
    guard: admin,
    summary: "Load central-bank rates: the Czech National Bank's daily text or the ECB's euro reference CSV",
    body: Invoicing.RatesImport,
    success: { status: 200, schema: RatesImported, description: "how many rates were stored" },
    errors: ["validation_failed"],
    handle: ({ body }) =>
      Effect.flatMap(Invoicing.Invoicing, (invoicing) => invoicing.importRates(body)).pipe(Effect.map(ok))
  })
]

export const adminArea: Area = {
  admin: adminRoutes,
  schemaNames: [
    ...named(
      Access,
      "Scope",
      "KeyCreate",
      "CreatedKey",
      "KeySummary",
      "KeyPage",
      "OrganisationSummary",
      "OrganisationPage"
    ),
    ...named(
      Settings,
      "Organisation",
      "OrganisationCreate",
      "Settings",
      "SettingsInput",
      "PlanInput",
      "NumberingInput",
      "SeriesInput",
      "User",
      "UserInput"
    )
  ]
}
