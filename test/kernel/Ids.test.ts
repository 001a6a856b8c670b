/**
 * Ids from a seed: a kernel given `Ids.layerSeeded(seed)` mints, for the same operations, the same
 * ids on every run (what lets a model test replay exactly from its seed), and other ids for
 * another seed.
 */
import { Access, Contacts, Deals, Ids, Kernel, Settings, Tasks } from "@crm/core"
import * as StorageMemory from "@crm/storage-memory"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { describe, expect, it } from "vitest"
import { z } from "zod"

const actor = { keyId: null }
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

/** Every id one short sequence of operations mints, in order, on a fresh kernel seeded with `seed`. */
const mintedIds = async (seed: number): Promise<ReadonlyArray<string>> => {
  const kernel = ManagedRuntime.make(
    Kernel.layer.pipe(Layer.provide(StorageMemory.layer), Layer.provide(Ids.layerSeeded(seed)))
  )
  try {
    return await kernel.runPromise(
      Effect.gen(function* () {
        const access = yield* Access.Access
        const organisation = yield* access.createOrganisation(Settings.OrganisationCreate.parse({ name: "Seeded" }))
        const key = yield* access.createKey(organisation.id, Access.KeyCreate.parse({ scopes: ["read"] }))
        const contact = yield* (yield* Contacts.Contacts).create(
          organisation,
          Contacts.ContactCreate.parse({ first_name: "Ada" }),
          actor
        )
        const deal = yield* (yield* Deals.Deals).create(organisation, Deals.DealCreate.parse({ title: "Deal" }), actor)
        const task = yield* (yield* Tasks.Tasks).create(organisation, Tasks.TaskCreate.parse({ title: "Call" }), actor)
        // Every uuid in what came back: the records' own ids and those of the pipelines and stages.
        return JSON.stringify([organisation, key, contact, deal, task]).match(UUID) ?? []
      })
    )
  } finally {
    await kernel.dispose()
  }
}

describe("Ids", () => {
  it("mints the same ids for the same seed, other ids for another, each a v4 uuid", async () => {
    const first = await mintedIds(20_261_128)
    expect(await mintedIds(20_261_128)).toEqual(first)
    const other = await mintedIds(20_261_129)
    expect(other.some((id) => first.includes(id))).toBe(false)
    expect(first.length).toBeGreaterThan(5)
    for (const id of [...first, ...other]) expect(z.uuidv4().safeParse(id).success).toBe(true)
  })

  it("mints random ids where nothing is provided", async () => {
    const random = Effect.runSync(Effect.map(Ids.Ids, (ids) => [ids.next(), ids.next()]))
    expect(random[0]).not.toBe(random[1])
    expect(z.uuidv4().safeParse(random[0]).success).toBe(true)
  })
})
