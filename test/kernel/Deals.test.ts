/**
 * `Deals.move` on every store, as every transport calls it: the target stage by id or by name, and
 * the answer carrying the tasks the stage's playbook created in the same unit of work.
 */
import { Access, Deals, Ids, Kernel, Settings, Tasks } from "@crm/core"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { layerOn } from "../support/ports.js"
import { storages } from "../support/storages.js"

const actor = { keyId: null }

type Services = Access.Access | Deals.Deals | Tasks.Tasks

const id = () => crypto.randomUUID()
const stage = () => Ids.brand(Deals.StageId, id())
const ids = {
  sales: Ids.brand(Deals.PipelineId, id()),
  lead: stage(),
  proposal: stage(),
  review: stage(),
  reviewAgain: stage(),
  won: stage()
}

/** Proposal carries a playbook; two stages share the name "Review", told apart only by id. */
const pipelines = [
  {
    id: ids.sales,
    name: "Sales",
    stages: [
      { id: ids.lead, name: "Lead", kind: "open" },
      {
        id: ids.proposal,
        name: " Proposal ",
        kind: "open",
        playbook: [
          { title: "Send proposal", due_in_days: 3, priority: "high" },
          { title: "Call back", due_in_days: null }
        ]
      },
      { id: ids.review, name: "Review", kind: "open" },
      { id: ids.reviewAgain, name: "review", kind: "open" },
      { id: ids.won, name: "Won", kind: "won" }
    ]
  }
]

const codesOf = (error: unknown) =>
  (error as { detail: ReadonlyArray<{ path: string; code: string }> }).detail.map(({ path, code }) => ({ path, code }))

for (const storage of storages) {
  layer(layerOn<Services>(storage, (ports) => Kernel.layer.pipe(Layer.provide(ports))))(
    `deals move [${storage.name}]`,
    (it) => {
      it.effect("answers the tasks the playbook created, and resolves a stage by its one name", () =>
        Effect.gen(function* () {
          const access = yield* Access.Access
          const deals = yield* Deals.Deals
          const tasks = yield* Tasks.Tasks
          const organisation = yield* access.createOrganisation({
            name: "Moves",
            settings: Settings.SettingsInput.parse({ pipelines })
          })
          const deal = yield* deals.create(organisation, { title: "Big one" }, actor)

          const moved = yield* deals.move(organisation, deal.id, { stage_name: "PROPOSAL" }, actor)
          expect(moved.deal).toMatchObject({ id: deal.id, status_id: ids.proposal })
          expect(moved.tasks.map((task) => task.title)).toEqual(["Send proposal", "Call back"])
          const stored = yield* tasks.listBy(
            organisation,
            { entityType: "deal", entityId: deal.id, order: "due" },
            { limit: 10, offset: 0 }
          )
          expect(new Set(moved.tasks.map((task) => task.id))).toEqual(new Set(stored.data.map((task) => task.id)))

          // Staying where it is creates nothing; leaving and coming back creates the playbook again.
          expect(yield* deals.move(organisation, deal.id, { status_id: ids.proposal }, actor)).toEqual({
            deal: moved.deal,
            tasks: []
          })
          const lead = yield* deals.move(organisation, deal.id, { status_id: ids.lead }, actor)
          expect(lead.tasks).toEqual([])
          const back = yield* deals.move(organisation, deal.id, { status_id: ids.proposal }, actor)
          expect(back.tasks).toHaveLength(2)
          expect(back.tasks.some((task) => moved.tasks.some((earlier) => earlier.id === task.id))).toBe(false)

          const refusal = (request: Deals.DealMove) =>
            Effect.flip(deals.move(organisation, deal.id, request, actor)).pipe(Effect.map(codesOf))
          expect(yield* refusal({ stage_name: "Review" })).toEqual([{ path: "stage_name", code: "ambiguous_stage" }])
          expect(yield* refusal({ stage_name: "Nowhere" })).toEqual([{ path: "stage_name", code: "unknown_stage" }])
          expect(yield* refusal({})).toEqual([{ path: "status_id", code: "invalid" }])
          expect(yield* refusal({ status_id: ids.won, stage_name: "Won" })).toEqual([
            { path: "status_id", code: "invalid" }
          ])
          const missing = yield* Effect.flip(
            deals.move(organisation, Ids.brand(Deals.DealId, id()), { stage_name: "Won" }, actor)
          )
          expect(missing._tag).toBe("NotFound")

          const won = yield* deals.move(organisation, deal.id, { stage_name: "won" }, actor)
          expect(won.deal).toMatchObject({ status_id: ids.won, status_kind: "won" })
          expect(won.tasks).toEqual([])
        })
      )
    }
  )
}
