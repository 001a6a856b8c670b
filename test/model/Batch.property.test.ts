/**
 * The general rules of batches and upserts, on every store, as properties:
 * - a batch equals its items applied one by one in order, or nothing: when the items applied one
 *   at a time all succeed, the batch makes the same records and events; when the n-th is refused,
 *   the batch is `batch_failed` naming n with that refusal, and writes nothing;
 * - applying the same upsert twice equals applying it once: the second finds nothing to change,
 *   writes nothing and emits nothing.
 */
import { Access, Batch, Contacts, Events, Kernel, Settings } from "@crm/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Built, build } from "../support/ports.js"
import { storages } from "../support/storages.js"

const RUNS = Number(process.env.MODEL_RUNS ?? 25)
const actor = { keyId: null }

type Services = Kernel.Services

const newOrganisation = (maxContacts: number | null) =>
  Effect.flatMap(Access.Access, (access) =>
    access.createOrganisation(
      Settings.OrganisationCreate.parse({ name: "property", settings: { plan: { max_contacts: maxContacts } } })
    )
  )

/** The organisation's contacts and events with what differs between two organisations (ids, times) left out. */
const snapshot = (organisation: Settings.Organisation) =>
  Effect.gen(function* () {
    const contacts = yield* Contacts.Contacts
    const events = yield* Events.Events
    const page = yield* contacts.list(organisation, Contacts.ContactListQuery.parse({ limit: "200" }))
    const log = yield* events.poll(organisation.id, Events.EventsQuery.parse({ limit: "200" }))
    return {
      // Records made in the same millisecond list in the order of their random ids: compared as a set.
      contacts: page.data.map(({ id: _, created_at: __, updated_at: ___, ...rest }) => JSON.stringify(rest)).sort(),
      events: log.data.map((event) => event.event)
    }
  })

const email = fc.constantFrom("a@example.com", "b@example.com", "c@example.com", null)
const createItem = fc.record(
  {
    first_name: fc.constantFrom("Ada", "Bob", null),
    email,
    status: fc.constantFrom(...(["lead", "customer"] as const))
  },
  { requiredKeys: ["first_name"] }
)
const upsertItem = fc.record(
  {
    email: fc.constantFrom("a@example.com", "B@example.com", "b@example.com"),
    first_name: fc.constantFrom("Ada", "Bob", null),
    last_name: fc.constantFrom("Lovelace", null),
    status: fc.constantFrom(...(["lead", "prospect", "customer"] as const)),
    custom: fc.constantFrom({}, { tier: 1 }, { tier: 2, region: "eu" })
  },
  { requiredKeys: ["email"] }
)

for (const storage of storages) {
  describe(`batches and upserts, as properties [${storage.name}]`, () => {
    let kernel: Built<Services> | undefined
    beforeAll(async () => {
      kernel = await build(storage, (ports) => Kernel.layer.pipe(Layer.provide(ports)))
    })
    afterAll(async () => kernel?.close())

    it("applies a batch as its items one by one in order, or not at all", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(createItem, { minLength: 1, maxLength: 6 }),
          fc.array(email, { maxLength: 2 }),
          fc.constantFrom(null, 2, 4),
          async (items, existing, maxContacts) => {
            const run = kernel!.run
            const setUp = Effect.gen(function* () {
              const contacts = yield* Contacts.Contacts
              const organisation = yield* newOrganisation(maxContacts)
              for (const address of existing) {
                if (address !== null) yield* Effect.either(contacts.create(organisation, { email: address }, actor))
              }
              return organisation
            })
            const oneByOne = await run(setUp)
            const batched = await run(setUp)
            const before = await run(snapshot(batched))

            // The reference: each item on its own, stopping at the first refusal.
            let refusal: { index: number; error: string; detail: unknown } | undefined
            await run(
              Effect.gen(function* () {
                const contacts = yield* Contacts.Contacts
                for (const [index, item] of items.entries()) {
                  const done = yield* Effect.either(contacts.create(oneByOne, item, actor))
                  if (Either.isLeft(done)) {
                    if (done.left._tag === "StorageError") return yield* done.left
                    refusal = { index, error: done.left.code, detail: done.left.detail }
                    return
                  }
                }
              })
            )

            const answer = await run(
              Effect.either(
                Effect.flatMap(Effect.zip(Batch.Batches, Contacts.Contacts), ([batches, contacts]) =>
                  batches.creates(items, (item) => contacts.create(batched, item, actor))
                )
              )
            )
            if (refusal === undefined) {
              expect(Either.isRight(answer)).toBe(true)
              expect(await run(snapshot(batched))).toEqual(await run(snapshot(oneByOne)))
            } else {
              expect(Either.isLeft(answer) && answer.left._tag).toBe("BatchFailed")
              if (Either.isLeft(answer) && answer.left._tag === "BatchFailed") {
                expect(answer.left.detail).toMatchObject({ index: refusal.index, error: refusal.error })
              }
              expect(await run(snapshot(batched))).toEqual(before)
            }
          }
        ),
        { numRuns: RUNS }
      )
    })

    it("changes nothing the second time the same upsert is applied", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(upsertItem, { minLength: 1, maxLength: 6 }), async (upserts) => {
          const run = kernel!.run
          const organisation = await run(newOrganisation(null))
          for (const upsert of upserts) {
            const apply = Effect.flatMap(Contacts.Contacts, (contacts) => contacts.upsert(organisation, upsert, actor))
            const once = await run(apply)
            const afterOnce = await run(snapshot(organisation))
            const twice = await run(apply)
            expect(twice.outcome).toBe("unchanged")
            expect(twice.record).toEqual(once.record)
            expect(await run(snapshot(organisation))).toEqual(afterOnce)
          }
        }),
        { numRuns: RUNS }
      )
    })
  })
}
