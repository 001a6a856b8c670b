import { Quotes } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import {
  type QuoteRevisionRow,
  type QuoteRow,
  quoteRevisionTable,
  quoteTable,
  toQuote,
  toQuoteRevision
} from "./internal/rows.js"

const quotes = LiveRecords.liveTable({ table: quoteTable, toRecord: toQuote, repository: "QuoteRepository" })

export const make: Effect.Effect<
  Context.Tag.Service<typeof Quotes.QuoteRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, quotes)

  return Quotes.QuoteRepository.of({
    insert: (organisationId, quote) => live.insert(organisationId, quote),
    organisationOf: live.organisationOf,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, quote) => live.update(organisationId, quote.id, quote),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.companyId !== undefined ? [sql`company_id = ${filter.companyId}::uuid`] : [])
      ]),
    addRevision: (organisationId, revision) =>
      sql`INSERT INTO quote_revisions ${quoteRevisionTable.insert(sql, revision, {
        organisation_id: sql`${organisationId}::uuid`
      })}`.pipe(Effect.asVoid, orStorageError("QuoteRepository.addRevision")),
    revisions: (organisationId, quoteId) =>
      sql<QuoteRevisionRow>`SELECT ${sql.literal(quoteRevisionTable.selected)} FROM quote_revisions
        WHERE organisation_id = ${organisationId}::uuid AND quote_id = ${quoteId}::uuid
        ORDER BY revision`.pipe(
        Effect.map((rows) => rows.map(toQuoteRevision)),
        orStorageError("QuoteRepository.revisions")
      ),
    sentExpiringBefore: (organisationId, today) =>
      sql<QuoteRow>`SELECT ${live.selected} FROM quotes
        WHERE ${live.whereLive(organisationId)} AND status = 'sent' AND valid_until < ${today}::date
        ORDER BY valid_until, id`.pipe(
        Effect.map((rows) => rows.map(toQuote)),
        orStorageError("QuoteRepository.sentExpiringBefore")
      ),
    acceptedNotInvoiced: (organisationId) =>
      sql<QuoteRow>`SELECT ${live.selected} FROM quotes
        WHERE ${live.whereLive(organisationId)} AND status = 'accepted' AND invoice_id IS NULL`.pipe(
        Effect.map((rows) => rows.map(toQuote)),
        orStorageError("QuoteRepository.acceptedNotInvoiced")
      )
  })
})

export const layer = Layer.effect(Quotes.QuoteRepository, make)
