/** Deals: sales opportunities moving through the stages of a pipeline. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import { AccessRepository } from "./Access/AccessRepository.js"
import * as BusinessTime from "./BusinessClock/BusinessTime.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import { Cursors } from "./Cursors.js"
import { closingNotice } from "./Deals/ClosingNotice.js"
import { DealId } from "./Deals/DealIds.js"
import { type DealFilter, DealRepository } from "./Deals/DealRepository.js"
import {
  Deal,
  type DealCreate,
  type DealListQuery,
  type DealMove,
  type DealPatch,
  type StageVisit
} from "./Deals/DealSchemas.js"
import * as DealStage from "./Deals/DealStage.js"
import type { StageId } from "./Deals/PipelineIds.js"
import type { Pipeline } from "./Deals/PipelineSchemas.js"
import { StageAutomations } from "./Deals/StageAutomations.js"
import type { NotFound, StorageError, ValidationFailed } from "./Errors.js"
import { payloadOf, pick } from "./Events/EventCatalogue.js"
import { EventLog, type NewEvent } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { archiveLive, heldOrganisation, merge, nowIso, orNotFound, partyLinks } from "./internal/records.js"
import { Mailer } from "./Mail.js"
import { checkPrecision } from "./Money/Currency.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import type { Actor, ResourceService } from "./Resource.js"
import type { Task } from "./Tasks/TaskSchemas.js"
import { Transaction } from "./Transaction.js"
import { type Page, type PageResult, toPage } from "./Wire.js"

export * from "./Deals/ClosingNotice.js"
export * from "./Deals/DealRepository.js"
export * from "./Deals/DealSchemas.js"
export * from "./Deals/DealSettings.js"
export * as DealStage from "./Deals/DealStage.js"
export * from "./Deals/PipelineSchemas.js"
export * from "./Deals/StageAutomations.js"

export class Deals extends Context.Tag("@crm/core/Deals")<
  Deals,
  ResourceService<
    z.output<typeof DealCreate>,
    z.output<typeof DealPatch>,
    DealListQuery,
    Deal,
    ValidationFailed,
    ValidationFailed
  > & {
    /**
     * `POST /deals/{id}/status`: see `DealStage.move` (the target by id or by name); writes history,
     * runs automations, emits events, and answers the tasks the automations created with the deal.
     */
    readonly move: (
      organisation: Organisation,
      id: DealId,
      request: DealMove,
      actor: Actor
    ) => Effect.Effect<Moved, NotFound | ValidationFailed | StorageError>
    readonly history: (
      organisation: Organisation,
      id: DealId
    ) => Effect.Effect<ReadonlyArray<StageVisit>, NotFound | StorageError>
    readonly pipelines: (organisation: Organisation, page: Page) => PageResult<Pipeline>
    /** A page of deals by the repository's filter and order (what the assistant tools ask for). */
    readonly listBy: (
      organisation: Organisation,
      filter: DealQuery,
      page: Page
    ) => Effect.Effect<PageResult<Deal>, StorageError>
  }
>() {}

/** A move's answer: the deal as it now stands, and the tasks entering its stage created (none when it stayed). */
export interface Moved {
  readonly deal: Deal
  readonly tasks: ReadonlyArray<Task>
}

/** The repository's filter, with "overdue to close" said in the organisation's own calendar. */
export type DealQuery = Omit<DealFilter, "closeBefore"> & {
  /** Open deals whose `expected_close_date` is before today in the organisation's time zone. */
  readonly overdueClose?: boolean
}

const CREATED_FIELDS = [
  "id",
  "title",
  "value",
  "currency",
  "pipeline_id",
  "status_id",
  "contact_id",
  "expected_close_date"
] as const
const UPDATED_FIELDS = ["id", "title", "value", "currency", "status_id", "status_kind", "expected_close_date"] as const
const createdPayload = payloadOf(Deal, CREATED_FIELDS)
const updatedPayload = payloadOf(Deal, UPDATED_FIELDS)
const STATUS_CHANGED_FIELDS = ["id", "title", "status_id", "status_kind", "contact_id"] as const
const CLOSED_FIELDS = ["id", "title", "contact_id", "lost_reason"] as const

const moveEvents = (deal: Deal): ReadonlyArray<NewEvent> => [
  { event: "deal.status_changed", data: pick(deal, STATUS_CHANGED_FIELDS) },
  ...(deal.status_kind === "won" ? [{ event: "deal.won" as const, data: pick(deal, CLOSED_FIELDS) }] : []),
  ...(deal.status_kind === "lost" ? [{ event: "deal.lost" as const, data: pick(deal, CLOSED_FIELDS) }] : [])
]

const checkValue = (deal: Deal) => checkPrecision("value", deal.value, deal.currency)

const visitOf = (deal: Deal, from: StageId | null, at: string, actor: Actor): StageVisit => ({
  deal_id: deal.id,
  pipeline_id: deal.pipeline_id,
  from_status_id: from,
  status_id: deal.status_id,
  status_kind: deal.status_kind,
  entered_at: at,
  left_at: null,
  key_id: actor.keyId
})

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* DealRepository
  const cursors = yield* Cursors
  const contacts = yield* ContactRepository
  const companies = yield* CompanyRepository
  const automations = yield* StageAutomations
  const events = yield* EventLog
  const tx = yield* Transaction
  const mailer = yield* Mailer
  const access = yield* AccessRepository

  const find = (organisationId: OrganisationId, id: DealId) => repo.get(organisationId, id).pipe(orNotFound("deal"))
  const lock = (organisationId: OrganisationId, id: DealId) =>
    repo.getForUpdate(organisationId, id).pipe(orNotFound("deal"))

  const requireLinks = partyLinks(contacts, companies)

  return Deals.of({
    create: operation("Deals.create")(function* (requested, input, actor) {
      return yield* tx.run(
        Effect.gen(function* () {
          const organisation = yield* heldOrganisation(access, requested)
          const { pipeline, stage } = yield* DealStage.place(organisation.settings, input)
          yield* requireLinks(organisation.id, input)
          const now = yield* nowIso
          const deal = DealStage.enter(
            {
              id: brand(DealId, ids.next()),
              title: input.title,
              value: input.value ?? null,
              currency: input.currency ?? organisation.settings.default_currency,
              pipeline_id: pipeline.id,
              status_id: stage.id,
              status_kind: stage.kind,
              contact_id: input.contact_id ?? null,
              company_id: input.company_id ?? null,
              owner_id: input.owner_id ?? null,
              expected_close_date: input.expected_close_date ?? null,
              lost_reason: null,
              closed_at: null,
              custom: input.custom ?? {},
              created_at: now,
              updated_at: now
            },
            stage,
            now
          )
          yield* checkValue(deal)
          // A deal created straight into a stage meets its requirements, as a move there would.
          yield* DealStage.checkRequired(stage, deal)
          yield* repo.insert(organisation.id, deal)
          yield* repo.enterStage(organisation.id, visitOf(deal, null, now, actor))
          yield* events.append(organisation.id, [{ event: "deal.created", data: createdPayload(deal) }], now)
          return deal
        })
      )
    }),
    get: (organisation, id) => find(organisation.id, id),
    update: operation("Deals.update")(function* (organisation, id, patch) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* lock(organisation.id, id)
          yield* requireLinks(organisation.id, patch)
          const now = yield* nowIso
          const { pipeline_id: _pipeline, status_id: _stage, ...fields } = patch
          const deal = { ...merge(current, fields), updated_at: now }
          yield* checkValue(deal)
          yield* repo.update(organisation.id, deal)
          yield* events.append(organisation.id, [{ event: "deal.updated", data: updatedPayload(deal) }], now)
          return deal
        })
      )
    }),
    move: operation("Deals.move")(function* (requested, id, request, actor) {
      return yield* tx.run(
        Effect.gen(function* () {
          const organisation = yield* heldOrganisation(access, requested)
          const current = yield* lock(organisation.id, id)
          const now = yield* nowIso
          const move = yield* DealStage.move(organisation.settings, current, request, now)
          if (move._tag === "Unchanged") return { deal: current, tasks: [] }
          const { deal, pipeline, from, to } = move
          yield* repo.update(organisation.id, deal)
          yield* repo.enterStage(organisation.id, visitOf(deal, current.status_id, now, actor))
          yield* events.append(organisation.id, moveEvents(deal), now)
          const tasks = yield* automations.entered({
            organisation,
            deal,
            pipeline,
            from,
            stage: to,
            at: now,
            keyId: actor.keyId
          })
          // The owner hears of a close through the outbox, in this transaction: no mail for a rolled-back move.
          const notice = closingNotice(organisation.settings, deal, to)
          if (notice !== null) yield* mailer.send(organisation.id, notice)
          return { deal, tasks }
        })
      )
    }),
    history: (organisation, id) => Effect.zipRight(find(organisation.id, id), repo.history(organisation.id, id)),
    pipelines: (organisation, page) =>
      toPage(organisation.settings.pipelines.slice(page.offset, page.offset + page.limit + 1), page),
    listBy: operation("Deals.listBy")(function* (organisation, { overdueClose, ...filter }, page) {
      if (overdueClose !== true) return toPage(yield* repo.list(organisation.id, filter, page), page)
      // A won or lost deal is never overdue to close: that combination matches nothing.
      if (filter.statusKind !== undefined && filter.statusKind !== "open") return toPage([], page)
      const today = yield* BusinessTime.today(organisation)
      const rows = yield* repo.list(organisation.id, { ...filter, statusKind: "open", closeBefore: today }, page)
      return toPage(rows, page)
    }),
    archive: operation("Deals.archive")((organisation, id) =>
      archiveLive(tx, (at) => repo.archive(organisation.id, id, at), find(organisation.id, id))
    ),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "deals" }, query, (page) =>
        repo.list(
          organisation.id,
          {
            ...(query.status_kind !== undefined ? { statusKind: query.status_kind } : {}),
            ...(query.contact_id !== undefined ? { contactId: query.contact_id } : {}),
            ...(query.company_id !== undefined ? { companyId: query.company_id } : {}),
            ...(query.pipeline_id !== undefined ? { pipelineId: query.pipeline_id } : {})
          },
          page
        )
      )
  })
})

export const layer = Layer.effect(Deals, make)
