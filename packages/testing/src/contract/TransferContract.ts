/**
 * An organisation carried out whole and back (`Transfer`, over the `TransferStore` port): export,
 * import into an empty store, export again gives the same lines (the header's time aside), for
 * organisations fast-check makes; a bad line or a truncated file leaves nothing behind; an
 * organisation the store holds already is refused.
 */
import { Access, Ids, Import, Invoicing, Kernel, Transfer, Webhooks } from "@crm/core"
import { describe, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import fc from "fast-check"
import { type ContractOptions, contractCases } from "./ContractCases.js"
import { apiKey, at, type StoragePorts, uuid } from "./Fixtures.js"

const kernel = (ports: Layer.Layer<StoragePorts, unknown>) => Layer.provideMerge(Kernel.layer, ports)

/** Every line of an export, as text. */
const exported = (organisationId: string, includeSecrets = true) =>
  Effect.gen(function* () {
    const transfer = yield* Transfer.Transfer
    const header = yield* transfer.header(organisationId as never, { include_secrets: includeSecrets })
    const lines: Array<string> = []
    yield* transfer.exportTo(header, (page) => Effect.sync(() => lines.push(...page)))
    return lines
  })

const bytesOf = (lines: ReadonlyArray<string>) => Stream.make(new TextEncoder().encode(`${lines.join("\n")}\n`))

const withoutTime = (lines: ReadonlyArray<string>) => {
  const [header, ...rest] = lines
  const { exported_at: _, ...kept } = JSON.parse(header!) as Record<string, unknown>
  return [JSON.stringify(kept), ...rest]
}

const line = (value: unknown) => JSON.stringify(value)

/** An organisation with records of many kinds, made through the kernel's own operations. */
const populate = (people: ReadonlyArray<{ readonly first: string; readonly score: number }>) =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const organisation = yield* access.createOrganisation({ name: "Exported" })
    const key = yield* access.createKey(organisation.id, { name: "k", scopes: ["read", "write"], allowed_ips: [] })
    // A connected app's key travels with its grant's id and its client (the grant stays behind).
    yield* (yield* Access.AccessRepository).insertKey(
      apiKey(organisation.id, { name: "Claude", grant_id: uuid(), client_id: "https://claude.example.test/oauth" })
    )
    const text = [
      line({ type: "company", ref: "acme", name: "Acme", country: "CZ" }),
      ...people.map((person, n) =>
        line({
          type: "contact",
          ref: `c${n}`,
          first_name: person.first,
          email: `p${n}@example.test`,
          company_id: "$ref:acme",
          custom: { score: person.score }
        })
      ),
      line({ type: "deal", title: "Big", value: 1234.5, company_id: "$ref:acme" }),
      line({ type: "task", title: "Call", entity_type: "company", entity_id: "$ref:acme" }),
      line({ type: "product", ref: "w", sku: "W-1", name: "Widget", unit_price: 99.99, vat_rate: 21 }),
      line({ type: "stock", product_id: "$ref:w", count: 10 }),
      line({
        type: "invoice",
        ref: "inv",
        company_id: "$ref:acme",
        items: [{ product_id: "$ref:w", name: "Widget", quantity: 3, unit_price: 99.99, vat_rate: 21 }]
      }),
      line({ type: "ticket", subject: "Broken", channel: "email", requester_email: "x@example.test" })
    ].join("\n")
    const report = yield* (yield* Import.Import).run(organisation.id, text, { keyId: null })
    const invoiceId = report.items.find((item) => item.type === "invoice")!.id
    const invoicing = yield* Invoicing.Invoicing
    yield* invoicing.issue(organisation, Ids.brand(Invoicing.InvoiceId, invoiceId), {})
    yield* invoicing.pay(organisation, Ids.brand(Invoicing.InvoiceId, invoiceId), { amount: "100.5" as never })
    yield* (yield* Webhooks.WebhookRepository).insert(
      {
        id: Ids.brand(Webhooks.HookId, uuid()),
        organisation_id: organisation.id,
        key_id: key.id,
        target_url: "https://hooks.example.test/in",
        events: ["contact.created"],
        active: true,
        disabled_reason: null,
        secret: "whsec_kept",
        previous_secret: null,
        previous_secret_expires_at: null,
        failing_since: null,
        unanswered_attempts: 0,
        paused_until: null,
        created_at: at(0),
        updated_at: at(0)
      },
      20
    )
    return organisation
  })

export const suite = (
  name: string,
  makeLayer: () => Layer.Layer<StoragePorts, unknown>,
  options: ContractOptions = {}
): void => {
  const { test } = contractCases(() => kernel(makeLayer()), options)
  /** Runs `effect` on another, empty store. */
  const elsewhere = <A, E>(effect: Effect.Effect<A, E, Kernel.Services | StoragePorts>) =>
    Effect.provide(effect, kernel(makeLayer()))

  describe(`Transfer storage contract: ${name}`, () => {
    test(
      "export, import into an empty store, export again: the same lines, every id, number and total kept",
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.record({
                first: fc.string({ minLength: 1, maxLength: 12 }),
                score: fc.integer({ min: -1e6, max: 1e6 })
              }),
              { maxLength: 6 }
            ),
            (people) =>
              Effect.runPromise(
                Effect.provide(
                  Effect.gen(function* () {
                    const organisation = yield* populate(people)
                    const before = yield* exported(organisation.id)
                    const after = yield* elsewhere(
                      Effect.gen(function* () {
                        const summary = yield* (yield* Transfer.Transfer).importFrom(bytesOf(before))
                        expect(summary.organisation_id).toBe(organisation.id)
                        expect(summary.items).toBe(before.length - 2)
                        const again = yield* exported(organisation.id)
                        // What the kernel reads back is the same too.
                        const invoices = yield* (yield* Invoicing.Invoicing).list(
                          yield* (yield* Access.Access).getOrganisation(organisation.id),
                          { limit: 10, offset: 0 } as never
                        )
                        expect(invoices.data[0]?.number).not.toBeNull()
                        return again
                      })
                    )
                    expect(withoutTime(after)).toEqual(withoutTime(before))
                  }),
                  kernel(makeLayer())
                )
              )
          ),
          { numRuns: 2 }
        )
      ),
      180_000
    )

    test(
      "without secrets a hook's secret is left out, and an import gives the hook a new one",
      Effect.gen(function* () {
        const organisation = yield* populate([])
        const lines = yield* exported(organisation.id, false)
        expect(lines.join("\n")).not.toContain("whsec_kept")
        expect(JSON.parse(lines[0]!).secrets).toBe(false)
        const again = yield* elsewhere(
          Effect.zipRight(
            Effect.flatMap(Transfer.Transfer, (transfer) => transfer.importFrom(bytesOf(lines))),
            exported(organisation.id)
          )
        )
        const text = again.join("\n")
        expect(text).not.toContain("whsec_kept")
        expect(text).toMatch(/whsec_[0-9A-Za-z]+/)
      })
    )

    test(
      "a bad line is import_failed naming it, and nothing of the file is kept",
      Effect.gen(function* () {
        const organisation = yield* populate([{ first: "Ada", score: 1 }])
        const lines = yield* exported(organisation.id)
        const bad = [...lines]
        bad.splice(3, 0, "{not json")
        const truncated = lines.slice(0, -1)
        const results = yield* elsewhere(
          Effect.gen(function* () {
            const transfer = yield* Transfer.Transfer
            const refused = yield* Effect.flip(transfer.importFrom(bytesOf(bad)))
            const cut = yield* Effect.flip(transfer.importFrom(bytesOf(truncated)))
            const left = yield* Effect.either((yield* Access.Access).getOrganisation(organisation.id))
            return { refused, cut, left }
          })
        )
        expect(results.refused._tag).toBe("ImportFailed")
        expect(results.refused).toMatchObject({ detail: { line: 4, error: "invalid_json" } })
        expect(results.cut).toMatchObject({ detail: { error: "missing_end" } })
        expect(Either.isLeft(results.left)).toBe(true)
      })
    )

    test(
      "an organisation the store holds already is organisation_exists; a file of another store is refused on line 1",
      Effect.gen(function* () {
        const organisation = yield* populate([])
        const lines = yield* exported(organisation.id)
        const transfer = yield* Transfer.Transfer
        const taken = yield* Effect.flip(transfer.importFrom(bytesOf(lines)))
        expect(taken._tag).toBe("OrganisationExists")
        const other = [JSON.stringify({ ...JSON.parse(lines[0]!), store: "elsewhere" }), ...lines.slice(1)]
        const refused = yield* elsewhere(
          Effect.flip(Effect.flatMap(Transfer.Transfer, (transfer) => transfer.importFrom(bytesOf(other))))
        )
        expect(refused).toMatchObject({ detail: { line: 1, error: "other_store" } })
      })
    )
  })
}
