import { Companies } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LiveRecords from "./internal/liveRecords.js"
import { companyTable, toCompany } from "./internal/rows.js"

const companies = LiveRecords.liveTable({
  table: companyTable,
  toRecord: toCompany,
  searchable: ["name", "domain", "email"],
  repository: "CompanyRepository"
})

export const make: Effect.Effect<
  Context.Tag.Service<typeof Companies.CompanyRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, companies)

  return Companies.CompanyRepository.of({
    insert: (organisationId, company) => live.insert(organisationId, company),
    get: live.get,
    findByDomain: (organisationId, domain) =>
      live.findBy(organisationId, sql`lower(domain) = ${domain.toLowerCase()}`, "findByDomain", false),
    update: (organisationId, company) => live.update(organisationId, company.id, company),
    archive: live.archive,
    list: live.list,
    countLive: live.countLive
  })
})

export const layer = Layer.effect(Companies.CompanyRepository, make)
