/** Companies in memory: rows per organisation, archived ones kept but never read. */
import { Companies } from "@crm/core"
import type * as Context from "effect/Context"
import * as LiveRecords from "./internal/liveRecords.js"
import type { Store } from "./internal/Store.js"

const companies = LiveRecords.table<Companies.Company>("companies")

export const make = (store: Store): Context.Tag.Service<typeof Companies.CompanyRepository> => {
  const live = LiveRecords.make<Companies.Company>(store, {
    table: companies,
    noun: "company",
    searchable: (company) => [company.name, company.domain, company.email]
  })
  return Companies.CompanyRepository.of({
    insert: live.insert,
    get: live.get,
    findByDomain: (organisationId, domain) =>
      live.findBy(organisationId, (company) => company.domain?.toLowerCase() === domain.toLowerCase()),
    update: live.update,
    archive: live.archive,
    list: live.list,
    countLive: live.countLive
  })
}
