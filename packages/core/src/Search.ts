/**
 * Search: one read across contacts, companies and deals for a caller that does not know which
 * kind of record it means (an assistant's `search` and `fetch`), each result named by an id that
 * `fetch` turns into the full record.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { CompanyId } from "./Companies/CompanyIds.js"
import { CompanyRepository } from "./Companies/CompanyRepository.js"
import type { Company } from "./Companies/CompanySchemas.js"
import { ContactId } from "./Contacts/ContactIds.js"
import { ContactRepository } from "./Contacts/ContactRepository.js"
import type { Contact } from "./Contacts/ContactSchemas.js"
import { DealId } from "./Deals/DealIds.js"
import { DealRepository } from "./Deals/DealRepository.js"
import type { Deal } from "./Deals/DealSchemas.js"
import * as DealStage from "./Deals/DealStage.js"
import { invalidField, type NotFound, type StorageError, type ValidationFailed } from "./Errors.js"
import { brand } from "./Ids.js"
import { orNotFound } from "./internal/records.js"
import type { Organisation, OrganisationId } from "./Organisation.js"
import {
  companySnippet,
  contactSnippet,
  contactTitle,
  dealSnippet,
  fieldLines,
  interleave,
  parseRecordId,
  type SearchHit
} from "./Search/SearchHits.js"
import { toPage } from "./Wire.js"

export * from "./Search/SearchHits.js"

export interface SearchHits {
  readonly items: ReadonlyArray<SearchHit>
  /** Some record matched that `items` leaves out. */
  readonly has_more: boolean
}

/** A hit in full: `text` is every field as a readable line, `record` the record itself. */
export type FetchedRecord = SearchHit &
  (
    | { readonly type: "contact"; readonly record: Contact }
    | { readonly type: "company"; readonly record: Company }
    | { readonly type: "deal"; readonly record: Deal }
  )

export class Search extends Context.Tag("@crm/core/Search")<
  Search,
  {
    /**
     * Contacts (by name, email or phone), companies (by name, domain or email) and deals (by title)
     * whose text contains `query`, case-insensitively: one of each kind in turn, each kind newest
     * first, at most `limit`.
     */
    readonly find: (organisation: Organisation, query: string, limit: number) => Effect.Effect<SearchHits, StorageError>
    /** The record behind an id `find` answered; an id of no kind is `validation_failed` naming `id`. */
    readonly fetch: (
      organisation: Organisation,
      id: string
    ) => Effect.Effect<FetchedRecord, NotFound | ValidationFailed | StorageError>
  }
>() {}

export const make = Effect.gen(function* () {
  const contacts = yield* ContactRepository
  const companies = yield* CompanyRepository
  const deals = yield* DealRepository

  // Names of the companies the contacts point at: one read per distinct company.
  const companyNames = (organisationId: OrganisationId, of: ReadonlyArray<Contact>) =>
    Effect.forEach(
      [...new Set(of.flatMap((contact) => (contact.company_id === null ? [] : [contact.company_id])))],
      (id) =>
        Effect.map(
          companies.get(organisationId, id),
          (company) => [id, Option.getOrNull(Option.map(company, ({ name }) => name))] as const
        )
    ).pipe(Effect.map((pairs) => new Map(pairs)))

  const companyOf = (names: ReadonlyMap<string, string | null>, contact: Contact): string | null =>
    contact.company_id === null ? null : (names.get(contact.company_id) ?? null)

  return Search.of({
    find: (organisation, query, limit) =>
      Effect.gen(function* () {
        // One row past the limit of each kind tells whether anything was left out.
        const page = { limit, offset: 0 }
        const text = query === "" ? {} : { q: query }
        const [contactRows, companyRows, dealRows] = yield* Effect.all([
          contacts.list(organisation.id, text, page),
          companies.list(organisation.id, text, page),
          deals.list(organisation.id, text, page)
        ])
        const contactPage = toPage(contactRows, page)
        const companyPage = toPage(companyRows, page)
        const dealPage = toPage(dealRows, page)
        const names = yield* companyNames(organisation.id, contactPage.data)
        const results: ReadonlyArray<ReadonlyArray<SearchHit>> = [
          contactPage.data.map((contact) => ({
            id: `contact:${contact.id}`,
            type: "contact" as const,
            title: contactTitle(contact),
            text: contactSnippet(contact, companyOf(names, contact))
          })),
          companyPage.data.map((company) => ({
            id: `company:${company.id}`,
            type: "company" as const,
            title: company.name,
            text: companySnippet(company)
          })),
          dealPage.data.map((deal) => ({
            id: `deal:${deal.id}`,
            type: "deal" as const,
            title: deal.title,
            text: dealSnippet(deal, DealStage.locate(organisation.settings, deal).stage?.name)
          }))
        ]
        const items = interleave(results, limit)
        const matched = results.reduce((sum, list) => sum + list.length, 0)
        return {
          items,
          has_more: items.length < matched || contactPage.has_more || companyPage.has_more || dealPage.has_more
        }
      }),
    fetch: (organisation, id) =>
      Effect.gen(function* () {
        const named = parseRecordId(id)
        if (named === undefined) {
          return yield* invalidField(
            "id",
            "must be contact:<uuid>, company:<uuid> or deal:<uuid> as returned by search"
          )
        }
        const fullId = `${named.kind}:${named.uuid}`
        switch (named.kind) {
          case "contact": {
            const contact = yield* contacts
              .get(organisation.id, brand(ContactId, named.uuid))
              .pipe(orNotFound("contact"))
            const names = yield* companyNames(organisation.id, [contact])
            return {
              id: fullId,
              type: named.kind,
              title: contactTitle(contact),
              text: fieldLines(contact, [["company", companyOf(names, contact)]]),
              record: contact
            }
          }
          case "company": {
            const company = yield* companies
              .get(organisation.id, brand(CompanyId, named.uuid))
              .pipe(orNotFound("company"))
            return { id: fullId, type: named.kind, title: company.name, text: fieldLines(company), record: company }
          }
          case "deal": {
            const deal = yield* deals.get(organisation.id, brand(DealId, named.uuid)).pipe(orNotFound("deal"))
            const { pipeline, stage } = DealStage.locate(organisation.settings, deal)
            return {
              id: fullId,
              type: named.kind,
              title: deal.title,
              text: fieldLines(deal, [
                ["pipeline", pipeline?.name ?? null],
                ["stage", stage?.name ?? null]
              ]),
              record: deal
            }
          }
        }
      })
  })
})

export const layer = Layer.effect(Search, make)
