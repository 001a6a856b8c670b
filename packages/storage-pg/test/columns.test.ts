/**
 * Tables declared once (`internal/columns.ts`): an insert's columns and values, an update's
 * assignments and a row's record all come from one declaration, matched by name; enum columns are
 * read through the core's schemas, so a value the core does not know is refused, never cast.
 * Runs on PGlite, and on the PostgreSQL server when DATABASE_URL is set.
 */
import { Access, Errors, type Events, Ids, Notes, Organisation, Webhooks } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it, layer, type Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { serverUrl } from "../../../test/support/pgDatabase.js"
import { pgliteStore, serverStore } from "../../../test/support/storages.js"
import type * as StoragePg from "../src/index.js"
import { literal, nullable, table, text, timestamp, uuid } from "../src/internal/columns.js"
import { toEvent } from "../src/internal/rows.js"
import { StoredValueRefused } from "../src/internal/storedValues.js"
import { toDelivery, toHook } from "../src/internal/webhookRows.js"

const at = "2026-11-22T09:30:00.000Z"

describe("a declared table", () => {
  const things = table("things", {
    id: uuid(),
    name: nullable(text()),
    status: literal(Webhooks.DeliveryStatus),
    created_at: timestamp()
  })

  it("lists its columns, their placeholders and an insert's values in one order, whatever order a record has", () => {
    expect(things.list).toBe("id, name, status, created_at")
    expect(things.width).toBe(4)
    expect(things.placeholders(3)).toBe("$3::uuid, $4, $5, $6::timestamptz")
    const id = crypto.randomUUID()
    expect(things.values({ created_at: at, status: "pending", name: null, id })).toEqual([id, null, "pending", at])
  })

  it("reads a row by its columns' names, checking each", () => {
    const id = crypto.randomUUID()
    const row = { status: "failed", created_at: new Date(at), id, name: "x" }
    expect(things.read(row)).toEqual({ id, name: "x", status: "failed", created_at: at })
    expect(() => things.read({ ...row, status: "lost" })).toThrow(StoredValueRefused)
  })
})

describe("enum columns", () => {
  const hookRow = {
    id: Ids.brand(Webhooks.HookId, crypto.randomUUID()),
    organisation_id: Ids.brand(Organisation.OrganisationId, crypto.randomUUID()),
    key_id: Ids.brand(Access.KeyId, crypto.randomUUID()),
    target_url: "https://example.com/hook",
    events: ["contact.created"],
    active: true,
    disabled_reason: null,
    secret: "whsec_x",
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    unanswered_attempts: "0",
    paused_until: null,
    created_at: at,
    updated_at: at
  }

  it("refuses a hook subscribed to an event the catalogue does not name", () => {
    expect(toHook(hookRow).events).toEqual(["contact.created"])
    expect(() => toHook({ ...hookRow, events: ["contact.created", "contact.exploded"] })).toThrow(StoredValueRefused)
  })

  const deliveryRow = {
    id: Ids.brand(Webhooks.DeliveryId, crypto.randomUUID()),
    hook_id: hookRow.id,
    event_id: "7",
    event: "contact.created",
    status: "pending",
    attempt_count: 1,
    next_attempt_at: null,
    created_at: at,
    attempts: [
      {
        attempted_at: "2026-11-22T09:30:00+00:00",
        status_code: 500,
        duration_ms: 12,
        response_excerpt: null,
        error: null
      }
    ]
  }

  it("reads a delivery's status, event and attempts through the core's schemas", () => {
    const delivery = toDelivery(deliveryRow)
    expect(delivery.status).toBe("pending")
    expect(delivery.attempts[0]!.attempted_at).toBe(at)
    expect(() => toDelivery({ ...deliveryRow, status: "lost" })).toThrow(StoredValueRefused)
    expect(() => toDelivery({ ...deliveryRow, event: "contact.exploded" })).toThrow(StoredValueRefused)
    expect(() => toDelivery({ ...deliveryRow, attempts: [{ attempted_at: at }] })).toThrow(StoredValueRefused)
  })

  it("refuses an event whose stored name the catalogue does not know", () => {
    const row = { id: "3", event: "contact.created", data: "{}", created_at: at }
    expect(toEvent(row).event).toBe("contact.created" satisfies Events.EventName)
    expect(() => toEvent({ ...row, event: "contact.exploded" })).toThrow(StoredValueRefused)
  })
})

type Services = StoragePg.Ports | SqlClient.SqlClient

const suite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect("refuses a note whose stored type or entity type the core does not know", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* Notes.NoteRepository
      const org = Ids.brand(Organisation.OrganisationId, crypto.randomUUID())
      const note: Notes.Note = {
        id: Ids.brand(Notes.NoteId, crypto.randomUUID()),
        entity_type: "contact",
        entity_id: crypto.randomUUID(),
        type: "note",
        body: "Called back",
        call_id: null,
        author_key_id: null,
        pinned: false,
        created_at: at
      }
      yield* repo.insert(org, note)
      expect((yield* repo.list(org, {}, { limit: 10, offset: 0 })).map((read) => read.id)).toEqual([note.id])
      for (const spoil of [
        sql`UPDATE notes SET type = 'fax'`,
        sql`UPDATE notes SET type = 'note', entity_type = 'x'`
      ]) {
        yield* sql`${spoil} WHERE id = ${note.id}::uuid`
        const error = yield* Effect.flip(repo.list(org, {}, { limit: 10, offset: 0 }))
        expect(error).toBeInstanceOf(Errors.StorageError)
        expect(error.message).toContain("NoteRepository.list")
      }
    })
  )
}

layer(pgliteStore(), { timeout: "60 seconds" })("enum columns on PGlite", (it) => suite(it))

describe.skipIf(serverUrl === undefined)("on the PostgreSQL server", () => {
  layer(serverStore({ maxConnections: 4 }), { timeout: "30 seconds" })("enum columns on PostgreSQL", (it) => suite(it))
})
