/**
 * A settings replacement that removes a stage, racing a deal entering that stage, on every store:
 * the replacement's count and write are one unit holding the organisation, and the deal's write
 * holds it too, so whichever comes second sees the first. A deal never ends in a removed stage.
 */
import { Access, Deals, Ids, Kernel, type Organisation, Settings, Transaction } from "@crm/core"
import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { layerOn } from "../support/ports.js"
import { type StorageCase, storages } from "../support/storages.js"

type Services = Access.Access | Deals.Deals | Transaction.Transaction

const actor = { keyId: null }

const stage = () => Ids.brand(Deals.StageId, crypto.randomUUID())

const settingsOf = (proposal: Deals.StageId, withProposal: boolean) =>
  Settings.SettingsInput.parse({
    pipelines: [
      {
        name: "Sales",
        stages: [
          { name: "Lead", kind: "open" },
          ...(withProposal ? [{ id: proposal, name: "Proposal", kind: "open" }] : []),
          { name: "Won", kind: "won" }
        ]
      }
    ]
  })

/**
 * Until another transaction waits for a lock the test holds. On the PostgreSQL server that is seen
 * in `pg_stat_activity`; the other stores run one unit of work at a time, so whatever the other
 * side does next waits for the test's unit anyway.
 */
const someoneWaits = (storage: StorageCase) =>
  storage.name !== "postgres"
    ? Effect.void
    : Effect.gen(function* () {
        const sql = Option.getOrThrow(yield* Effect.serviceOption(SqlClient.SqlClient))
        while (true) {
          const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`
          if (row!.n > 0) return
          yield* Effect.sleep("5 millis")
        }
      }).pipe(Effect.orDie)

/** Runs `inside` in a unit of work that stays open until `release` is done; `ready` once `inside` has run. */
const heldOpen = <A, E, R>(inside: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const tx = yield* Transaction.Transaction
    const ready = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(
      tx.run(Effect.zipLeft(inside, Effect.zipRight(Deferred.succeed(ready, undefined), Deferred.await(release))))
    )
    yield* Deferred.await(ready)
    return { fiber, release: Deferred.succeed(release, undefined) }
  })

for (const storage of storages) {
  // The real clock: the wait for a lock polls.
  layer(
    layerOn<Services>(storage, (ports) => Kernel.layer.pipe(Layer.provideMerge(ports))),
    {
      excludeTestServices: true
    }
  )(`settings removals racing deal writes [${storage.name}]`, (it) => {
    it.effect("a deal entering the stage before the replacement commits is counted: the replacement is refused", () =>
      Effect.gen(function* () {
        const access = yield* Access.Access
        const deals = yield* Deals.Deals
        const proposal = stage()
        const organisation = yield* access.createOrganisation({ name: "Race", settings: settingsOf(proposal, true) })

        // The deal's unit has written but not committed when the replacement starts.
        const entering = yield* heldOpen(deals.create(organisation, { title: "In flight", status_id: proposal }, actor))
        const replacing = yield* Effect.fork(access.replaceSettings(organisation.id, settingsOf(proposal, false)))
        // Without one unit holding the organisation, the replacement finishes here, before the deal commits.
        yield* Effect.raceFirst(Fiber.await(replacing), someoneWaits(storage))
        yield* entering.release
        const deal = yield* Fiber.join(entering.fiber)

        const refused = yield* Effect.flip(Fiber.join(replacing))
        expect(refused._tag).toBe("InUse")
        expect(refused).toMatchObject({ detail: { stages: [{ stage_id: proposal, deals: 1 }] } })
        expect(
          (yield* access.getOrganisation(organisation.id)).settings.pipelines[0]!.stages.map((s) => s.id)
        ).toContain(proposal)
        expect((yield* deals.get(organisation, deal.id)).status_id).toBe(proposal)
      })
    )

    it.effect("a deal entering the stage after the replacement reads the new settings: the deal is refused", () =>
      Effect.gen(function* () {
        const access = yield* Access.Access
        const deals = yield* Deals.Deals
        const proposal = stage()
        // What the deal's request authenticated with: the settings before the replacement.
        const stale: Organisation.Organisation = yield* access.createOrganisation({
          name: "Race",
          settings: settingsOf(proposal, true)
        })

        const replacing = yield* heldOpen(access.replaceSettings(stale.id, settingsOf(proposal, false)))
        const entering = yield* Effect.fork(deals.create(stale, { title: "Late", status_id: proposal }, actor))
        // Without the deal's write holding the organisation, it lands here, in the stage being removed.
        yield* Effect.raceFirst(Fiber.await(entering), someoneWaits(storage))
        yield* replacing.release
        yield* Fiber.join(replacing.fiber)

        const refused = yield* Effect.flip(Fiber.join(entering))
        expect(refused._tag).toBe("ValidationFailed")
        expect(refused).toMatchObject({ detail: [{ path: "status_id", code: "invalid_stage" }] })
        const stages = (yield* access.getOrganisation(stale.id)).settings.pipelines[0]!.stages.map((s) => s.id)
        expect(stages).not.toContain(proposal)
        const listed = yield* deals.listBy(stale, {}, { limit: 10, offset: 0 })
        expect(listed.data).toEqual([])
      })
    )
  })
}
