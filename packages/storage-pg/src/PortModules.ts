/**
 * The port modules of the store: each builds its port over a `SqlClient` (`layer`) and may bring
 * the migrations its tables need (`migrations`, numbered in the one sequence of `Migrations.ts`). A
 * new port joins here, once. Not here, but in `Storage.ts`: the event log, whose layer takes
 * options, and the two ports that read the migrations themselves (the probe and the transfer), which
 * `Migrations.ts` would otherwise import through this list while it is being evaluated.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AccessRepository from "./AccessRepository.js"
import * as AuditLog from "./AuditLog.js"
import * as BookingRepository from "./BookingRepository.js"
import * as CallRepository from "./CallRepository.js"
import * as CompanyRepository from "./CompanyRepository.js"
import * as ContactRepository from "./ContactRepository.js"
import * as CursorSecret from "./CursorSecret.js"
import * as DealRepository from "./DealRepository.js"
import * as ExchangeRates from "./ExchangeRates.js"
import * as FormSubmissionRepository from "./FormSubmissionRepository.js"
import * as IdempotencyStore from "./IdempotencyStore.js"
import * as InvoiceRepository from "./InvoiceRepository.js"
import * as LeadRepository from "./LeadRepository.js"
import * as LinkPageRepository from "./LinkPageRepository.js"
import * as MailOutbox from "./MailOutbox.js"
import * as NoteRepository from "./NoteRepository.js"
import * as NumberSequence from "./NumberSequence.js"
import * as OAuthStore from "./OAuthStore.js"
import * as OrderRepository from "./OrderRepository.js"
import * as PeopleRepository from "./PeopleRepository.js"
import * as ProductRepository from "./ProductRepository.js"
import * as PurchaseOrderRepository from "./PurchaseOrderRepository.js"
import * as QuoteRepository from "./QuoteRepository.js"
import * as RateLimiter from "./RateLimiter.js"
import * as RecordRepository from "./RecordRepository.js"
import * as ReturnRepository from "./ReturnRepository.js"
import * as SiteRepository from "./SiteRepository.js"
import * as StockLedgerStore from "./StockLedgerStore.js"
import * as StoreGauges from "./StoreGauges.js"
import * as SurveyResponseRepository from "./SurveyResponseRepository.js"
import * as TaskRepository from "./TaskRepository.js"
import * as TicketRepository from "./TicketRepository.js"
import * as TransactionPort from "./Transaction.js"
import * as VisitRepository from "./VisitRepository.js"
import * as WebhookRepository from "./WebhookRepository.js"

/** A numbered schema change (`0024_notes_pinned`), as `Migrator.fromRecord` takes it. */
export type Migration = Effect.Effect<void, unknown, SqlClient.SqlClient>

export interface PortModule {
  readonly layer: Layer.Layer<never, never, SqlClient.SqlClient>
  readonly migrations?: Readonly<Record<string, Migration>>
}

export const ports = [
  TransactionPort,
  AccessRepository,
  RateLimiter,
  IdempotencyStore,
  ContactRepository,
  CompanyRepository,
  DealRepository,
  TaskRepository,
  ProductRepository,
  StockLedgerStore,
  RecordRepository,
  FormSubmissionRepository,
  VisitRepository,
  LeadRepository,
  QuoteRepository,
  InvoiceRepository,
  NumberSequence,
  ExchangeRates,
  TicketRepository,
  ReturnRepository,
  PurchaseOrderRepository,
  SurveyResponseRepository,
  CallRepository,
  WebhookRepository,
  OrderRepository,
  MailOutbox,
  SiteRepository,
  BookingRepository,
  LinkPageRepository,
  NoteRepository,
  StoreGauges,
  CursorSecret,
  PeopleRepository,
  AuditLog,
  OAuthStore
] as const satisfies ReadonlyArray<PortModule>

/** The ports the list builds, read off each module's layer (distributed over the list's union). */
type Provided = (typeof ports)[number]["layer"] extends infer L
  ? L extends Layer.Layer<infer Port, never, SqlClient.SqlClient>
    ? Port
    : never
  : never

/**
 * Every port of the list in one layer. `Layer.mergeAll` types a tuple written out, not a list
 * mapped from another, hence the cast; what it builds is read off the modules themselves.
 */
export const layer = Layer.mergeAll(
  ...(ports.map((port): PortModule["layer"] => port.layer) as [PortModule["layer"]])
) as Layer.Layer<Provided, never, SqlClient.SqlClient>

/** Every migration the ports bring, by name. */
export const portMigrations: ReadonlyArray<readonly [name: string, migration: Migration]> = ports.flatMap((port) =>
  "migrations" in port ? Object.entries(port.migrations) : []
)
