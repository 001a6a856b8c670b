import { Quotes } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { orStorageError } from "./internal/errors.js"
import * as LiveRecords from "./internal/liveRecords.js"
import { type QuoteRevisionRow, type QuoteRow, toQuote, toQuoteRevision } from "./internal/rows.js"
import { json } from "./internal/values.js"

const quotes: LiveRecords.LiveTable<QuoteRow, Quotes.Quote> = {
  table: "quotes",
  columns: `id, number, status, revision, currency, contact_id, company_id, items, subtotal, vat_total, total,
    vat_summary, valid_until, vat_reason, note, invoice_id, created_at, updated_at`,
  readAs: { valid_until: "valid_until::text" },
  toRecord: toQuote,
  repository: "QuoteRepository"
}

export const make: Effect.Effect<
  Context.Tag.Service<typeof Quotes.QuoteRepository>,
  never,
  SqlClient.SqlClient
> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const live = LiveRecords.make(sql, quotes)

  return Quotes.QuoteRepository.of({
    insert: (organisationId, quote) =>
      live.insert(
        organisationId,
        sql`${quote.id}::uuid, ${quote.number}, ${quote.status}, ${quote.revision}::integer, ${quote.currency},
          ${quote.contact_id}::uuid, ${quote.company_id}::uuid, ${json(quote.items)}::jsonb,
          ${quote.subtotal}::numeric, ${quote.vat_total}::numeric, ${quote.total}::numeric,
          ${json(quote.vat_summary)}::jsonb, ${quote.valid_until}::date, ${quote.vat_reason}, ${quote.note},
          ${quote.invoice_id}::uuid, ${quote.created_at}::timestamptz, ${quote.updated_at}::timestamptz`
      ),
    organisationOf: live.organisationOf,
    get: live.get,
    getForUpdate: live.getForUpdate,
    update: (organisationId, quote) =>
      live.update(
        organisationId,
        quote.id,
        sql`number = ${quote.number}, status = ${quote.status}, revision = ${quote.revision}::integer,
          currency = ${quote.currency}, contact_id = ${quote.contact_id}::uuid, company_id = ${quote.company_id}::uuid,
          items = ${json(quote.items)}::jsonb, subtotal = ${quote.subtotal}::numeric,
          vat_total = ${quote.vat_total}::numeric, total = ${quote.total}::numeric,
          vat_summary = ${json(quote.vat_summary)}::jsonb, valid_until = ${quote.valid_until}::date,
          vat_reason = ${quote.vat_reason}, note = ${quote.note}, invoice_id = ${quote.invoice_id}::uuid,
          updated_at = ${quote.updated_at}::timestamptz`
      ),
    list: (organisationId, filter, page) =>
      live.list(organisationId, {}, page, [
        ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
        ...(filter.contactId !== undefined ? [sql`contact_id = ${filter.contactId}::uuid`] : []),
        ...(filter.companyId !== undefined ? [sql`company_id = ${filter.companyId}::uuid`] : [])
      ]),
    addRevision: (organisationId, revision) =>
      sql`INSERT INTO quote_revisions (organisation_id, quote_id, revision, sent_at, quote)
        VALUES (${organisationId}::uuid, ${revision.quote_id}::uuid, ${revision.revision}::integer,
          ${revision.sent_at}::timestamptz, ${json(revision.quote)}::jsonb)`.pipe(
        Effect.asVoid,
        orStorageError("QuoteRepository.addRevision")
      ),
    revisions: (organisationId, quoteId) =>
      sql<QuoteRevisionRow>`SELECT quote_id, revision, sent_at, quote FROM quote_revisions
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
