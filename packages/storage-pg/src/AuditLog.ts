/**
 * The audit trail in PostgreSQL (`People.AuditLog`, table `audit_log` of migration `0025_people`).
 * An entry is an INSERT on the caller's connection, so it commits or rolls back with the change it
 * records.
 */
import { type Organisation, People } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { json, nullable, type RowOfTable, table, text, timestamp, uuid } from "./internal/columns.js"
import { orStorageError } from "./internal/errors.js"
import { purgeBefore } from "./internal/purge.js"
import { actor } from "./PeopleRepository.js"

const auditTable = table("audit_log", {
  id: uuid<People.AuditEntryId>(),
  organisation_id: nullable(uuid<Organisation.OrganisationId>()),
  at: timestamp(),
  actor,
  action: text(),
  target: nullable(json(People.AuditEntry.shape.target.unwrap())),
  address: nullable(text()),
  summary: json(People.AuditEntry.shape.summary)
})
type AuditRow = RowOfTable<typeof auditTable>

export const make: Effect.Effect<Context.Tag.Service<typeof People.AuditLog>, never, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(auditTable.selected)
    return People.AuditLog.of({
      append: (entry) =>
        sql`INSERT INTO audit_log ${auditTable.insert(sql, entry)}`.pipe(
          Effect.asVoid,
          orStorageError("AuditLog.append")
        ),

      page: (organisationId, page) =>
        sql<AuditRow>`SELECT ${columns} FROM audit_log WHERE organisation_id = ${organisationId}::uuid
          ORDER BY at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`.pipe(
          Effect.map((rows) => rows.map(auditTable.read)),
          orStorageError("AuditLog.page")
        ),

      purge: (before) => purgeBefore(sql, "audit_log", "at", before, "AuditLog.purge")
    })
  }
)

export const layer = Layer.effect(People.AuditLog, make)
