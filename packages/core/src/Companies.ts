/** Companies: the organisations a CRM user sells to. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { z } from "zod"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import type { Company, CompanyCreate, CompanyListQuery, CompanyPatch } from "./Companies/CompanySchemas.js"
import type { PlanRefused } from "./Errors.js"
import { pick } from "./Events/EventCatalogue.js"
import { EventLog } from "./Events/EventLog.js"
import { operation } from "./internal/operation.js"
import { archiveLive, merge, nowIso, orNotFound, withinLimit } from "./internal/records.js"
import type { ResourceService } from "./Resource.js"
import { Transaction } from "./Transaction.js"
import { normaliseEmail, toSyncPage } from "./Wire.js"

export * from "./Companies/CompanyRepository.js"
export * from "./Companies/CompanySchemas.js"

export class Companies extends Context.Tag("@crm/core/Companies")<
  Companies,
  ResourceService<z.output<typeof CompanyCreate>, z.output<typeof CompanyPatch>, CompanyListQuery, Company, PlanRefused>
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

export const make = Effect.gen(function* () {
  const repo = yield* CompanyRepository
  const events = yield* EventLog
  const tx = yield* Transaction

  const find = (organisationId: string, id: string) => repo.get(organisationId, id).pipe(orNotFound("company"))

  return Companies.of({
    create: operation("Companies.create")(function* (organisation, input) {
      return yield* tx.run(
        Effect.gen(function* () {
          const now = yield* nowIso
          const company: Company = {
            id: crypto.randomUUID(),
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
          yield* withinLimit(
            tx,
            organisation.id,
            organisation.settings.plan.max_companies,
            "MAX_COMPANIES",
            repo.countLive
          )
          yield* events.append(
            organisation.id,
            [{ event: "company.created", data: pick(company, CREATED_FIELDS) }],
            now
          )
          return company
        })
      )
    }),
    get: (organisation, id) => find(organisation.id, id),
    update: operation("Companies.update")(function* (organisation, id, patch) {
      return yield* tx.run(
        Effect.gen(function* () {
          const current = yield* find(organisation.id, id)
          const now = yield* nowIso
          const company = { ...merge(current, { ...patch, email: clean(patch.email) }), updated_at: now }
          yield* repo.update(organisation.id, company)
          yield* events.append(
            organisation.id,
            [{ event: "company.updated", data: pick(company, UPDATED_FIELDS) }],
            now
          )
          return company
        })
      )
    }),
    archive: operation("Companies.archive")((organisation, id) =>
      archiveLive(tx, (at) => repo.archive(organisation.id, id, at), find(organisation.id, id))
    ),
    list: (organisation, query) =>
      repo
        .list(
          organisation.id,
          {
            ...(query.q !== undefined && query.q !== "" ? { q: query.q } : {})
          },
          query
        )
        .pipe(Effect.map((rows) => toSyncPage(rows, query)))
  })
})

export const layer = Layer.effect(Companies, make)
