import { Companies } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { type CompanyRow, toCompany } from "./internal/rows.js"
import { json } from "./internal/values.js"

const companies: LiveRecords.LiveTable<CompanyRow, Companies.Company> = {
  table: "companies",
  columns: "id, name, domain, email, vat_number, city, country, custom, created_at, updated_at",
  toRecord: toCompany,
  searchable: ["name", "domain", "email"],
  repository: "CompanyRepository"
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof Companies.CompanyRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, companies)

  return Companies.CompanyRepository.of({
    insert: (organisationId, company) =>
      live.insert(
        organisationId,
        sql`${company.id}::uuid, ${company.name}, ${company.domain}, ${company.email}, ${company.vat_number},
          ${company.city}, ${company.country}, ${json(company.custom)}::jsonb,
          ${company.created_at}::timestamptz, ${company.updated_at}::timestamptz`
      ),
    get: live.get,
    findByDomain: (organisationId, domain) =>
      live.findBy(organisationId, sql`lower(domain) = ${domain.toLowerCase()}`, "findByDomain", false),
    update: (organisationId, company) =>
      live.update(
        organisationId,
        company.id,
        sql`name = ${company.name}, domain = ${company.domain}, email = ${company.email},
          vat_number = ${company.vat_number}, city = ${company.city}, country = ${company.country},
          custom = ${json(company.custom)}::jsonb, updated_at = ${company.updated_at}::timestamptz`
      ),
    archive: live.archive,
    list: live.list,
    countLive: live.countLive
  })
})

export const layer = Layer.effect(Companies.CompanyRepository, make)
