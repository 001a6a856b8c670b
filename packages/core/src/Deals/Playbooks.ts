/**
 * The kernel's own stage-entry automation: each task of the entered stage's playbook is created
 * on the deal, assigned to the deal's owner, due `due_in_days` after the move (by the
 * organisation's business clock, which a test clock may have moved away from the real time).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as BusinessTime from "../BusinessClock/BusinessTime.js"
import { Tasks } from "../Tasks.js"
import { StageAutomations } from "./StageAutomations.js"

const DAY_MS = 86_400_000

export const layer = Layer.effect(
  StageAutomations,
  Effect.map(Tasks, (tasks) =>
    StageAutomations.of({
      entered: ({ organisation, deal, stage, keyId }) =>
        Effect.flatMap(BusinessTime.millis(organisation), (movedAt) =>
          Effect.forEach(stage.playbook, (item) =>
            tasks.create(
              organisation,
              {
                title: item.title,
                type: "playbook",
                priority: item.priority,
                due_at: item.due_in_days === null ? null : new Date(movedAt + item.due_in_days * DAY_MS).toISOString(),
                assignee_id: deal.owner_id,
                entity_type: "deal",
                entity_id: deal.id
              },
              { keyId }
            )
          )
        )
    })
  )
)
