import { Deals } from "@crm/core"
import * as Effect from "effect/Effect"
import { type Area, named } from "../Area.js"
import { ok } from "../Reply.js"
import { read, route, write } from "../Route.js"
import { actorOf } from "./principal.js"
import { resourceRoutes } from "./resource.js"

export const dealRoutes = [
  ...resourceRoutes({
    service: Deals.Deals,
    plural: "deals",
    singular: "deal",
    pascal: "Deal",
    schemas: {
      id: Deals.DealId,

      create: Deals.DealCreate,
      patch: Deals.DealPatch,
      record: Deals.Deal,
      page: Deals.DealPage,
      query: Deals.DealListQuery
    },
    createErrors: ["validation_failed"],
    updateErrors: [],
    notes: {
      create:
        "Create a deal: without pipeline_id in the first pipeline, without status_id in its first open stage; the stage's required fields must be present",
      update:
        "Change a deal: omitted fields keep their value, null clears a field; the stage moves only through POST /deals/{id}/status"
    }
  }),
  route({
    method: "POST",
    path: "/deals/{id}/status",
    params: { id: Deals.DealId },
    operationId: "moveDeal",
    tag: "deals",
    guard: write,
    summary:
      "Move a deal to another stage of its own pipeline: writes stage history, stamps closed_at on won/lost (clears it on open), creates the stage's playbook tasks, emits deal.status_changed and deal.won or deal.lost, mails the owner (one of the settings users) on won/lost; the stage it is already in changes nothing",
    body: Deals.DealStatus,
    success: { status: 200, schema: Deals.Deal, description: "the deal" },
    errors: ["not_found", "validation_failed"],
    handle: ({ principal, params, body }) =>
      Effect.flatMap(Deals.Deals, (deals) =>
        deals.move(principal.organisation, params.id, body, actorOf(principal))
      ).pipe(Effect.map(({ deal }) => ok(deal)))
  }),
  route({
    method: "GET",
    path: "/deals/{id}/stage-history",
    params: { id: Deals.DealId },
    operationId: "getDealStageHistory",
    tag: "deals",
    guard: read(),
    summary: "The deal's stays in each stage, oldest first: from, to, when entered and left, by which key",
    success: { status: 200, schema: Deals.StageHistory, description: "the stage history" },
    errors: ["not_found"],
    handle: ({ principal, params }) =>
      Effect.flatMap(Deals.Deals, (deals) => deals.history(principal.organisation, params.id)).pipe(
        Effect.map((data) => ok({ data }))
      )
  }),
  route({
    method: "GET",
    path: "/pipelines",
    operationId: "listPipelines",
    tag: "deals",
    guard: read(),
    summary: "The organisation's pipelines in order, each with its ordered stages, kinds, required fields and playbook",
    query: Deals.PipelineListQuery,
    success: { status: 200, schema: Deals.PipelinePage, description: "a page of pipelines" },
    errors: ["validation_failed"],
    handle: ({ principal, query }) =>
      Effect.map(Deals.Deals, (deals) => ok(deals.pipelines(principal.organisation, query)))
  })
]

export const dealsArea: Area = {
  api: dealRoutes,
  schemaNames: named(
    Deals,
    "Deal",
    "DealCreate",
    "DealPatch",
    "DealPage",
    "DealStatus",
    "StageHistory",
    "StageVisit",
    "PipelinePage",
    "Pipeline",
    "PipelineInput",
    "Stage",
    "StageInput",
    "StageKind",
    "PlaybookTask"
  )
}
