/** The organisation settings document: one schema validates the admin API, the CLI and storage reads. */
import { z } from "zod"

const isIanaZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export const StageKind = z.enum(["open", "won", "lost"])
export type StageKind = z.infer<typeof StageKind>

export const StageInput = z.strictObject({
  id: z.uuid().optional(),
  name: z.string().min(1).max(200),
  kind: StageKind,
  required_fields: z.array(z.string().min(1)).default([])
})

export const PipelineInput = z.strictObject({
  id: z.uuid().optional(),
  name: z.string().min(1).max(200),
  stages: z.array(StageInput).min(1)
})

export const PlanInput = z.strictObject({
  read_only: z.boolean().default(false),
  max_contacts: z.number().int().min(0).nullable().default(null),
  max_companies: z.number().int().min(0).nullable().default(null)
})

export const StockSettingsInput = z.strictObject({
  low_stock_threshold: z.number().int().min(0).default(5)
})

export const SettingsInput = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  timezone: z.string().refine(isIanaZone, "must be an IANA time zone such as Europe/Prague").default("UTC"),
  default_currency: z
    .string()
    .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as EUR")
    .default("EUR"),
  payment_terms_days: z.number().int().min(0).max(365).default(14),
  plan: PlanInput.default({ read_only: false, max_contacts: null, max_companies: null }),
  pipelines: z.array(PipelineInput).default([]),
  // Shapes arrive with the custom-records issue; until then they are kept as given.
  record_types: z.array(z.record(z.string(), z.unknown())).default([]),
  stock: StockSettingsInput.default({ low_stock_threshold: 5 })
})
export type SettingsInput = z.input<typeof SettingsInput>

export const Stage = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: StageKind,
  required_fields: z.array(z.string())
})
export type Stage = z.infer<typeof Stage>

export const Pipeline = z.object({ id: z.uuid(), name: z.string(), stages: z.array(Stage) })
export type Pipeline = z.infer<typeof Pipeline>

export const Settings = z.object({
  name: z.string(),
  timezone: z.string(),
  default_currency: z.string(),
  payment_terms_days: z.number().int(),
  plan: z.object({
    read_only: z.boolean(),
    max_contacts: z.number().int().nullable(),
    max_companies: z.number().int().nullable()
  }),
  pipelines: z.array(Pipeline),
  record_types: z.array(z.record(z.string(), z.unknown())),
  stock: z.object({ low_stock_threshold: z.number().int() })
})
export type Settings = z.infer<typeof Settings>

export const Organisation = z.object({ id: z.uuid(), name: z.string(), settings: Settings })
export type Organisation = z.infer<typeof Organisation>

export const OrganisationCreate = z.strictObject({
  name: z.string().min(1).max(200),
  settings: SettingsInput.optional()
})
