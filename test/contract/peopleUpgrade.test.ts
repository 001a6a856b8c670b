/**
 * Keys and mail stored before issue 36 read back with no maker, no last use and shown, not
 * withheld: on PostgreSQL through migration 0025's nullable columns and default, in memory through
 * an older export's key lines and mail entries.
 */
import { Access, Mail, Transfer } from "@crm/core"
import * as StorageMemory from "@crm/storage-memory"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { expect, it } from "vitest"
import { mail } from "../../packages/storage-memory/src/MailOutbox.js"
import people from "../../packages/storage-pg/src/migrations/0025_people.js"
import { apiKey, at, newId, organisation } from "../../packages/testing/src/contract/Fixtures.js"
import { pgliteStore } from "../support/storages.js"

const org = organisation("Before")
const { created_by: _maker, last_used_at: _used, ...keyBefore } = apiKey(org.id, { name: "old", created_at: at(1) })
const { withheld: _withheld, ...messageBefore }: Mail.MailMessage = {
  id: newId(Mail.MailMessageId),
  to: "buyer@example.test",
  subject: "Shipped",
  body: "Dear buyer",
  withheld: false,
  status: "sent",
  attempts: 1,
  last_error: null,
  next_attempt_at: null,
  created_at: at(2),
  sent_at: at(3)
}
const keyAfter: Access.ApiKeyRecord = { ...keyBefore, created_by: null, last_used_at: null }

it("reads a key and a message stored before migration 0025 as made by nobody, never used, shown", async () => {
  const read = await Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const access = yield* Access.AccessRepository
      // The schema as it was before 0025.
      for (const table of [
        "audit_log",
        "sign_in_failures",
        "people_links",
        "sessions",
        "invitations",
        "memberships",
        "accounts"
      ])
        yield* sql.unsafe(`DROP TABLE ${table}`)
      yield* sql`ALTER TABLE api_keys DROP COLUMN created_by, DROP COLUMN last_used_at`
      yield* sql`ALTER TABLE mail_outbox DROP COLUMN withheld`
      yield* access.insertOrganisation(org, at(0))
      yield* sql`INSERT INTO api_keys (id, organisation_id, name, hash, scopes, allowed_ips, created_at)
        VALUES (${keyBefore.id}, ${org.id}, ${keyBefore.name}, ${keyBefore.hash}, ARRAY['read', 'write'], '{}',
          ${keyBefore.created_at})`
      const m = messageBefore
      yield* sql`INSERT INTO mail_outbox (id, organisation_id, recipient, subject, body, status, attempts, created_at,
          sent_at)
        VALUES (${m.id}, ${org.id}, ${m.to}, ${m.subject}, ${m.body}, ${m.status}, ${m.attempts}, ${m.created_at},
          ${m.sent_at})`
      yield* people
      return {
        key: yield* access.key(keyBefore.id),
        mail: yield* (yield* Mail.MailOutbox).list(org.id, {}, { limit: 10, offset: 0 })
      }
    }).pipe(Effect.provide(pgliteStore()), Effect.scoped)
  )
  expect(read.key).toEqual(Option.some(keyAfter))
  expect(read.mail).toEqual([{ ...messageBefore, withheld: false }])
})

it("reads the keys and mail of a memory export made before issue 36 the same way", async () => {
  const line = (n: number, type: string, value: Record<string, unknown>): Transfer.ItemLine => ({
    line: n,
    type,
    value,
    text: JSON.stringify({ type, ...value })
  })
  const key = await Effect.runPromise(
    Effect.gen(function* () {
      const transfer = yield* Transfer.TransferStore
      yield* transfer.importItems(
        org.id,
        Stream.make(
          line(1, "organisation", { row: { organisation: org, createdAt: at(0) } }),
          line(2, "api_key", { row: keyBefore })
        )
      )
      return yield* (yield* Access.AccessRepository).key(keyBefore.id)
    }).pipe(Effect.provide(StorageMemory.layer))
  )
  expect(key).toEqual(Option.some(keyAfter))
  const rows = mail.codec.fromEntries([[messageBefore.id, messageBefore]])
  expect(HashMap.get(rows, messageBefore.id)).toEqual(Option.some({ ...messageBefore, withheld: false }))
})
