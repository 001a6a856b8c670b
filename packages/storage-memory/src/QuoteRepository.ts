/** Quotes in memory: rows per organisation, and the revisions each send froze beside them. */
import { Errors, Quotes } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as LiveRecords from "./internal/liveRecords.js"
import {
  copy,
  copyOut,
  earliestFirst,
  read,
  type Store,
  slot,
  type Tenant,
  tenant,
  withTenant,
  write
} from "./internal/Store.js"

const quotes = LiveRecords.table<Quotes.Quote>("quotes")
/** Each quote's frozen revisions, in the order they were recorded. */
const quoteRevisions = slot("quotes.revisions", HashMap.empty<string, ReadonlyArray<Quotes.QuoteRevision>>())

const revisionsOf = (t: Tenant, quoteId: string): ReadonlyArray<Quotes.QuoteRevision> =>
  Option.getOrElse(HashMap.get(quoteRevisions.get(t), quoteId), () => [])

export const make = (store: Store): Context.Tag.Service<typeof Quotes.QuoteRepository> => {
  const live = LiveRecords.make<Quotes.Quote>(store, {
    table: quotes,
    noun: "quote"
  })
  return Quotes.QuoteRepository.of({
    insert: live.insert,
    organisationOf: live.organisationOf,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: live.update,
    list: (organisationId, filter, page) =>
      live.list(
        organisationId,
        {},
        page,
        (quote) =>
          (filter.status === undefined || quote.status === filter.status) &&
          (filter.contactId === undefined || quote.contact_id === filter.contactId) &&
          (filter.companyId === undefined || quote.company_id === filter.companyId)
      ),
    addRevision: (organisationId, input) =>
      Effect.flatMap(copy(input), (revision) =>
        write<void, Errors.StorageError>(store, (state) => {
          const t = tenant(state, organisationId)
          const recorded = revisionsOf(t, revision.quote_id)
          // As the primary key (quote_id, revision) would: a send is frozen once.
          if (recorded.some((earlier) => earlier.revision === revision.revision)) {
            const message = `duplicate revision ${revision.revision} of quote ${revision.quote_id}`
            return [Either.left(new Errors.StorageError({ message })), state]
          }
          const next = quoteRevisions.update(t, (revisions) =>
            HashMap.set(revisions, revision.quote_id, [...recorded, revision])
          )
          return [Either.right(undefined), withTenant(state, organisationId, next)]
        })
      ),
    revisions: (organisationId, quoteId) =>
      read(store, (state) =>
        [...revisionsOf(tenant(state, organisationId), quoteId)].sort((x, y) => x.revision - y.revision).map(copyOut)
      ),
    sentExpiringBefore: (organisationId, today) =>
      live.select(
        organisationId,
        // YYYY-MM-DD compares as text in calendar order.
        (quote) => quote.status === "sent" && quote.valid_until !== null && quote.valid_until < today,
        earliestFirst((quote) => quote.valid_until ?? "")
      ),
    acceptedNotInvoiced: (organisationId) =>
      live.select(
        organisationId,
        (quote) => quote.status === "accepted" && quote.invoice_id === null,
        (x, y) => x.id.localeCompare(y.id)
      )
  })
}
