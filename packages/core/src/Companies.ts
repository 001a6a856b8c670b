/** Companies: the organisations a CRM user sells to. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { z } from "zod"
import { type Upserted, upsertAll, upsertBy, writeChange } from "./Batch.js"
import { CompanyId } from "./Companies/CompanyIds.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import {
  type Company,
  CompanyCreate,
  type CompanyListQuery,
  type CompanyPatch,
  type CompanyUpsert
} from "./Companies/CompanySchemas.js"
import { Cursors } from "./Cursors.js"
import type { BatchFailed, PlanRefused, StorageError, ValidationFailed } from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { brand, Ids } from "./Ids.js"
import { operation } from "./internal/operation.js"
import { archiveLive, merge, nowIso, orNotFound, withinLimit } from "./internal/records.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import type { Actor, ResourceService } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import { parse } from "./Validation.js"
import { normaliseEmail } from "./Wire.js"

export * from "./Companies/CompanyRepository.js"
export * from "./Companies/CompanySchemas.js"

export class Companies extends Context.Tag("@crm/core/Companies")<
  Companies,
  ResourceService<
    z.output<typeof CompanyCreate>,
    z.output<typeof CompanyPatch>,
    CompanyListQuery,
    Company,
    PlanRefused
  > & {
    /**
     * Changes only the fields sent of the oldest live company with `input.domain` (compared
     * case-insensitively), or creates one (then `name` is required); a change that alters nothing
     * writes nothing and emits nothing. Concurrent upserts of one domain create one company.
     */
    readonly upsert: (
      organisation: Organisation,
      input: z.output<typeof CompanyUpsert>,
      actor: Actor
    ) => Effect.Effect<Upserted<Company>, ValidationFailed | PlanRefused | StorageError>
    /**
     * Upserts of several keys in one unit of work, in order: every one or none (the first refused
     * item is `batch_failed` naming it). Every item's key lock is taken first, in sorted order.
     */
    readonly upsertMany: (
      organisation: Organisation,
      items: ReadonlyArray<z.output<typeof CompanyUpsert>>,
      actor: Actor
    ) => Effect.Effect<ReadonlyArray<Upserted<Company>>, BatchFailed | StorageError>
    /** The lock an upsert of `input` takes (the import takes them all before its first line). */
    readonly upsertKey: (input: z.output<typeof CompanyUpsert>) => string
  }
>() {}

const CREATED_FIELDS = [
  "id",
  "name",
  "domain",
  "email",
  "vat_number",
  "city",
  "country",
  "custom",
  "created_at"
] as const
const UPDATED_FIELDS = ["id", "name", "domain", "city", "updated_at"] as const

const clean = (email: string | null | undefined) => (email == null ? email : normaliseEmail(email))

const upsertKey = (input: { readonly domain: string }) => `company.domain:${input.domain.toLowerCase()}`

export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const repo = yield* CompanyRepository
  const cursors = yield* Cursors
  const events = yield* EventLog
  const tx = yield* Transaction

  const find = (organisationId: OrganisationId, id: CompanyId) =>
    repo.get(organisationId, id).pipe(orNotFound("company"))

  // Inside the caller's unit of work.
  const insert = Effect.fnUntraced(function* (organisation: Organisation, input: z.output<typeof CompanyCreate>) {
    const now = yield* nowIso
    const company: Company = {
      id: brand(CompanyId, ids.next()),
      name: input.name,
      domain: input.domain ?? null,
      email: clean(input.email) ?? null,
      vat_number: input.vat_number ?? null,
      city: input.city ?? null,
      country: input.country ?? null,
      custom: input.custom ?? {},
      created_at: now,
      updated_at: now
    }
    yield* repo.insert(organisation.id, company)
    yield* withinLimit(tx, organisation.id, organisation.settings.plan.max_companies, "MAX_COMPANIES", repo.countLive)
    yield* events.append(organisation.id, [{ event: "company.created", data: pick(company, CREATED_FIELDS) }], now)
    return company
  })

  // Inside the caller's unit of work; `None` when `onlyIfChanged` and the patch alters nothing.
  const change = Effect.fnUntraced(function* (
    organisation: Organisation,
    current: Company,
    patch: z.output<typeof CompanyPatch>,
    onlyIfChanged: boolean
  ) {
    const now = yield* nowIso
    const company = { ...merge(current, { ...patch, email: clean(patch.email) }), updated_at: now }
    return yield* writeChange(
      current,
      company,
      onlyIfChanged,
      Effect.zipRight(
        repo.update(organisation.id, company),
        events.append(organisation.id, [{ event: "company.updated", data: pick(company, UPDATED_FIELDS) }], now)
      )
    )
  })

  const upsert = operation("Companies.upsert")((organisation: Organisation, input: z.output<typeof CompanyUpsert>) => {
    // The key names the company; a found company keeps its domain as it was written.
    const { domain, ...patch } = input
    return upsertBy(
      tx,
      organisation.id,
      upsertKey(input),
      repo.findByDomain(organisation.id, domain),
      Effect.flatMap(parse(CompanyCreate, input), (created) => insert(organisation, created)),
      (current) => change(organisation, current, patch, true)
    )
  })

  return Companies.of({
    create: operation("Companies.create")(insert, (effect) => tx.run(effect)),
    get: (organisation, id) => find(organisation.id, id),
    update: operation("Companies.update")(
      function* (organisation, id, patch) {
        const current = yield* find(organisation.id, id)
        return Option.getOrThrow(yield* change(organisation, current, patch, false))
      },
      (effect) => tx.run(effect)
    ),
    upsertKey,
    upsert,
    upsertMany: operation("Companies.upsertMany")((organisation, items) =>
      upsertAll(tx, organisation.id, items, upsertKey, (item) => upsert(organisation, item))
    ),
    archive: operation("Companies.archive")((organisation, id) =>
      archiveLive(tx, (at) => repo.archive(organisation.id, id, at), find(organisation.id, id))
    ),
    list: (organisation, query) =>
      cursors.page({ organisationId: organisation.id, list: "companies" }, query, (page) =>
        repo.list(
          organisation.id,
          {
            ...(query.q !== undefined && query.q !== "" ? { q: query.q } : {})
          },
          page
        )
      )
  })
})

export const layer = Layer.effect(Companies, make)
