/**
 * A row holding what the core does not accept (a status written by hand, `NaN` in a money column)
 * is refused as a storage error by the repository that reads it, never handed out as a
 * silently wrong record. The rows are spoiled with raw SQL, as a hand edit or an old release would.
 * Runs on PGlite, and on the PostgreSQL server when DATABASE_URL is set.
 */
import {
  Access,
  Contacts,
  Deals,
  Errors,
  Ids,
  Money,
  Orders,
  Organisation,
  Pricing,
  Returns,
  Settings
} from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it, layer, type Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import fc from "fast-check"
import { serverUrl } from "../../../test/support/pgDatabase.js"
import { pgliteStore, serverStore } from "../../../test/support/storages.js"
import type * as StoragePg from "../src/index.js"
import { toReturn } from "../src/internal/serviceRows.js"
import { exactNumber, jsonOf, StoredValueRefused } from "../src/internal/storedValues.js"

const organisationId = () => Ids.brand(Organisation.OrganisationId, crypto.randomUUID())

type Services = StoragePg.Ports | SqlClient.SqlClient

const at = new Date(Date.UTC(2026, 10, 22, 9, 30)).toISOString()

const contact = (): Contacts.Contact => ({
  id: Ids.brand(Contacts.ContactId, crypto.randomUUID()),
  first_name: "Ann",
  last_name: null,
  email: null,
  phone: null,
  company_id: null,
  status: "lead",
  source: null,
  custom: {},
  created_at: at,
  updated_at: at
})

const deal = (value: Money.Amount): Deals.Deal => ({
  id: Ids.brand(Deals.DealId, crypto.randomUUID()),
  title: "Boiler",
  value,
  currency: "EUR",
  pipeline_id: Ids.brand(Deals.PipelineId, crypto.randomUUID()),
  status_id: Ids.brand(Deals.StageId, crypto.randomUUID()),
  status_kind: "open",
  contact_id: null,
  company_id: null,
  owner_id: null,
  expected_close_date: null,
  lost_reason: null,
  closed_at: null,
  custom: {},
  created_at: at,
  updated_at: at
})

/** A plain `StorageError` naming the operation and the column: not a defect, not an outage. */
const expectRefused = (error: Errors.StorageError, operation: string, column: string) => {
  expect(error).toBeInstanceOf(Errors.StorageError)
  expect(error).not.toBeInstanceOf(Errors.StorageUnavailable)
  expect(error.message).toContain(operation)
  expect(error.message).toContain(column)
}

const suite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect("refuses a contact whose stored status the core does not know, read one by one or by page", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* Contacts.ContactRepository
      const org = organisationId()
      const spoiled = contact()
      yield* repo.insert(org, spoiled)
      yield* sql`UPDATE contacts SET status = 'vip' WHERE id = ${spoiled.id}::uuid`
      expectRefused(yield* Effect.flip(repo.get(org, spoiled.id)), "ContactRepository.get", "status")
      expectRefused(
        yield* Effect.flip(repo.list(org, {}, { limit: 10, offset: 0 })),
        "ContactRepository.list",
        "status"
      )
    })
  )

  it.effect("refuses a contact whose stored custom fields are not an object", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* Contacts.ContactRepository
      const org = organisationId()
      const spoiled = contact()
      yield* repo.insert(org, spoiled)
      yield* sql`UPDATE contacts SET custom = '["vip"]'::jsonb WHERE id = ${spoiled.id}::uuid`
      expectRefused(yield* Effect.flip(repo.get(org, spoiled.id)), "ContactRepository.get", "custom")
    })
  )

  it.effect("keeps every digit of an amount, reads trailing zeros as the same amount, and refuses NaN", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* Deals.DealRepository
      const org = organisationId()
      // More digits than a double carries: written and read back as they are.
      const exact = deal(Money.AmountText.parse("123456789012345678.0000000000000000000001"))
      const padded = deal(Money.AmountText.parse("12.5"))
      const spoiled = deal(Money.ZERO)
      for (const written of [exact, padded, spoiled]) yield* repo.insert(org, written)
      yield* sql`UPDATE deals SET value = '12.5000'::numeric WHERE id = ${padded.id}::uuid`
      yield* sql`UPDATE deals SET value = 'NaN'::numeric WHERE id = ${spoiled.id}::uuid`
      expect(yield* repo.get(org, exact.id)).toEqual(Option.some(exact))
      expect(yield* repo.get(org, padded.id)).toEqual(Option.some(padded))
      expectRefused(yield* Effect.flip(repo.get(org, spoiled.id)), "DealRepository.get", "value")
    })
  )

  it.effect("refuses a key whose stored scopes the core does not know, so it grants nothing", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* Access.AccessRepository
      const organisation = {
        id: organisationId(),
        name: "Acme",
        settings: yield* Settings.complete("Acme", Settings.SettingsInput.parse({}))
      }
      yield* repo.insertOrganisation(organisation, at)
      const key: Access.ApiKeyRecord = {
        id: Ids.brand(Access.KeyId, crypto.randomUUID()),
        organisation_id: organisation.id,
        name: null,
        hash: crypto.randomUUID().replace(/-/g, ""),
        scopes: ["read"],
        expires_at: null,
        allowed_ips: [],
        revoked_at: null,
        created_at: at,
        owner_id: null,
        created_by: null,
        last_used_at: null,
        grant_id: null,
        client_id: null
      }
      yield* repo.insertKey(key)
      yield* sql`UPDATE api_keys SET scopes = ARRAY['read', 'everything'] WHERE id = ${key.id}::uuid`
      expectRefused(yield* Effect.flip(repo.findKeyByHash(key.hash)), "AccessRepository.findKeyByHash", "scopes")
      expectRefused(
        yield* Effect.flip(repo.keyPage(organisation.id, { limit: 10, offset: 0 }, "keys")),
        "keyPage",
        "scopes"
      )
    })
  )
}

describe("exactNumber", () => {
  it("reads back every double from the decimal it prints as, with or without trailing zeros", () =>
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.nat(3), (number, zeros) => {
        const printed = String(number)
        // PostgreSQL prints neither an exponent nor a negative zero for a numeric.
        fc.pre(!printed.includes("e") && !Object.is(number, -0))
        const padding = "0".repeat(zeros)
        const padded = zeros === 0 ? printed : printed.includes(".") ? `${printed}${padding}` : `${printed}.${padding}`
        expect(exactNumber("value", printed)).toBe(number)
        expect(exactNumber("value", padded)).toBe(number)
      })
    ))

  it("refuses a decimal whose double prints otherwise, and what is not a number at all", () => {
    for (const text of ["0.1000000000000000000001", "9007199254740993", "NaN", "Infinity", "-Infinity", "12.5x"]) {
      expect(() => exactNumber("value", text)).toThrow(StoredValueRefused)
    }
  })
})

describe("jsonOf", () => {
  const summary = jsonOf("vat_summary", Pricing.DocumentAmounts.vat_summary)
  const line = { vat_rate: 0.27, net: "100.1", vat: "27.03", gross: "127.13" }
  // As a release before amounts were text wrote it.
  const written = { vat_rate: 0.27, net: 100.1, vat: 27.03, gross: 127.13 }

  it("hands back a document the core's schema accepts, parsed from text or as the driver parsed it", () => {
    expect(summary([line])).toEqual([line])
    expect(summary(JSON.stringify([line, { ...line, extra: "kept" }]))).toEqual([line, { ...line, extra: "kept" }])
  })

  it("reads an amount a release before amounts were text wrote as a number, as the amount it was written as", () => {
    expect(summary([written, line])).toEqual([line, line])
    expect(summary(JSON.stringify([written]))).toEqual([line])
  })

  it("refuses a document of another shape, a missing field or a field of another type", () => {
    for (const stored of [
      { ...line },
      [{ ...line, vat: "27.0" }],
      [{ ...line, vat: "27 EUR" }],
      [{ ...line, vat: true }],
      [{ vat_rate: 0.27, net: "100", vat: "27" }],
      [null],
      null
    ]) {
      expect(() => summary(stored)).toThrow(StoredValueRefused)
    }
  })

  it("reads the lines of a return recorded before returns named their order's lines, and no other line", () => {
    const row = {
      id: Ids.brand(Returns.ReturnId, crypto.randomUUID()),
      number: "R-1",
      order_id: Ids.brand(Orders.OrderId, crypto.randomUUID()),
      contact_id: null,
      status: "requested",
      reason: null,
      created_at: at,
      updated_at: at
    }
    const item = { product_id: null, variant_id: null, name: "Boiler", quantity: 1 }
    expect(toReturn({ ...row, items: [item] }).items).toEqual([{ ...item, line: null }])
    expect(toReturn({ ...row, items: [{ ...item, line: 2 }] }).items).toEqual([{ ...item, line: 2 }])
    expect(() => toReturn({ ...row, items: [{ ...item, line: "2" }] })).toThrow(StoredValueRefused)
  })
})

layer(pgliteStore(), { timeout: "60 seconds" })("stored values on PGlite", (it) => suite(it))

describe.skipIf(serverUrl === undefined)("on the PostgreSQL server", () => {
  layer(serverStore({ maxConnections: 4 }), { timeout: "30 seconds" })("stored values on PostgreSQL", (it) => suite(it))
})
