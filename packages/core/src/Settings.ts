/**
 * Settings normalisation: validated input becomes a complete document in which every
 * pipeline and stage has a stable uuid, and an organisation always has a pipeline.
 */
import * as Effect from "effect/Effect"
import type { z } from "zod"
import { PipelineId, StageId } from "./Deals/DealSettings.js"
import { FormId } from "./Forms/FormSettings.js"
import { brand, Ids } from "./Ids.js"
import { UserId } from "./Organisation/UserIds.js"
import { RecordTypeId } from "./Records/RecordSettings.js"
import type { Settings, SettingsInput } from "./Settings/SettingsSchemas.js"

export * as SettingsRemovals from "./Settings/SettingsRemovals.js"
export * from "./Settings/SettingsSchemas.js"

export const defaultPipeline = (): z.output<typeof SettingsInput>["pipelines"][number] => ({
  name: "Sales",
  stages: [
    { name: "Qualified", kind: "open", required_fields: [], playbook: [] },
    { name: "Proposal", kind: "open", required_fields: [], playbook: [] },
    { name: "Negotiation", kind: "open", required_fields: [], playbook: [] },
    { name: "Won", kind: "won", required_fields: [], playbook: [] },
    { name: "Lost", kind: "lost", required_fields: [], playbook: [] }
  ]
})

/** Ids already present are kept, so a client can PUT back what it read without breaking deal references. */
export const complete = (name: string, input: z.output<typeof SettingsInput>): Effect.Effect<Settings> =>
  Effect.map(Ids, ({ next: newId }) => {
    const pipelines = input.pipelines.length > 0 ? input.pipelines : [defaultPipeline()]
    return {
      name: input.name ?? name,
      timezone: input.timezone,
      default_currency: input.default_currency,
      payment_terms_days: input.payment_terms_days,
      country: input.country,
      seller: input.seller,
      numbering: input.numbering,
      plan: input.plan,
      pipelines: pipelines.map((pipeline) => ({
        id: pipeline.id ?? brand(PipelineId, newId()),
        name: pipeline.name,
        stages: pipeline.stages.map((stage) => ({
          id: stage.id ?? brand(StageId, newId()),
          name: stage.name,
          kind: stage.kind,
          required_fields: stage.required_fields,
          playbook: stage.playbook,
          ...(stage.probability === undefined ? {} : { probability: stage.probability })
        }))
      })),
      record_types: input.record_types.map((type) => ({ ...type, id: type.id ?? brand(RecordTypeId, newId()) })),
      forms: input.forms.map((form) => ({ ...form, id: form.id ?? brand(FormId, newId()) })),
      stock: input.stock,
      users: input.users.map((user) => ({ id: user.id ?? brand(UserId, newId()), name: user.name, email: user.email }))
    }
  })
