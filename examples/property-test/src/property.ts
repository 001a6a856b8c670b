import { Contacts, Kernel } from "@crm/core"
import * as StorageMemory from "@crm/storage-memory"
import { Arbitraries, Models } from "@crm/testing"
import { Effect, Layer } from "effect"
import fc from "fast-check"

const kernel = Models.runner(Kernel.layer.pipe(Layer.provide(StorageMemory.layer)))
// Random sequences of deal and task operations, each checked against the reference model.
await fc.assert(fc.asyncProperty(Models.DealsTasks.commands(), (cmds) => Models.DealsTasks.run(kernel, cmds)))
// Any contact the schema accepts is created (or refused for a taken email) and reads back as created.
const { real } = await Models.DealsTasks.setup(kernel)
await fc.assert(
  fc.asyncProperty(Arbitraries.parsed(Contacts.ContactCreate), async (input) => {
    const createAndRead = Effect.gen(function* () {
      const contacts = yield* Contacts.Contacts
      const created = yield* contacts.create(real.organisation, { ...input, company_id: null }, real.actor)
      return { created, read: yield* contacts.get(real.organisation, created.id) }
    })
    const outcome = await kernel.run(Effect.either(createAndRead))
    if (outcome._tag === "Left") return outcome.left.code === "email_already_exists"
    return JSON.stringify(outcome.right.created) === JSON.stringify(outcome.right.read)
  })
)
await kernel.close()
console.log("property-test: the deals-and-tasks model and contact creation hold")
