/**
 * The organisation settings document: one schema validates the admin API, the CLI and storage
 * reads. It is composed of the organisation-wide part and each context's own part, in the
 * document's order; the vocabulary of each part belongs to its context.
 */
import { z } from "zod"
import { DealSettings, DealSettingsInput } from "../Deals/DealSettings.js"
import { FormSettings, FormSettingsInput } from "../Forms/FormSettings.js"
import { InventorySettings, InventorySettingsInput } from "../Inventory/StockSettings.js"
import {
  OrganisationSettings,
  OrganisationSettingsInput,
  PeopleSettings,
  PeopleSettingsInput,
  withSettings
} from "../Organisation.js"
import { RecordSettings, RecordSettingsInput } from "../Records/RecordSettings.js"

export {
  DEFAULT_NUMBERING,
  MAX_USERS,
  NO_SELLER,
  NumberingInput,
  PlanInput,
  SellerInput,
  SeriesInput,
  User,
  UserInput
} from "../Organisation.js"

export const SettingsInput = z.strictObject({
  ...OrganisationSettingsInput.shape,
  ...DealSettingsInput.shape,
  ...RecordSettingsInput.shape,
  ...FormSettingsInput.shape,
  ...InventorySettingsInput.shape,
  ...PeopleSettingsInput.shape
})
export type SettingsInput = z.input<typeof SettingsInput>

export const Settings = z.object({
  ...OrganisationSettings.shape,
  ...DealSettings.shape,
  ...RecordSettings.shape,
  ...FormSettings.shape,
  ...InventorySettings.shape,
  ...PeopleSettings.shape
})
export type Settings = z.infer<typeof Settings>

export const Organisation = withSettings(Settings)
export type Organisation = z.infer<typeof Organisation>

export const OrganisationCreate = z.strictObject({
  name: z.string().min(1).max(200),
  settings: SettingsInput.optional(),
  test_mode: z
    .boolean()
    .optional()
    .describe(
      "default false; a test-mode organisation's clock can be frozen and advanced (POST /admin/v1/organisations/{id}/clock), and its keys say test_mode in GET /me. Fixed at creation"
    )
})
