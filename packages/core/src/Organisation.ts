/**
 * The base every context builds on: the organisation an operation acts in, and who acts. It
 * imports no context. An organisation's settings document is the organisation-wide part (here)
 * plus each context's own part, which the context adds to `SettingsParts` beside its vocabulary
 * (`Deals/DealSettings.ts`); `Settings` assembles the document's schema from the same parts, so a
 * part the schema lacks, or the type lacks, fails to compile where organisations are passed.
 */
import { z } from "zod"
import type { OrganisationSettings } from "./Organisation/OrganisationSettings.js"
import { IdInput, Timestamp } from "./Wire.js"

export * from "./Organisation/OrganisationSettings.js"

/**
 * An organisation's id. Branded, because it is the tenant every store call is scoped to: the
 * compiler refuses any other id, or any other string, in its place.
 */
export const OrganisationId = IdInput.brand<"OrganisationId">()
export type OrganisationId = z.output<typeof OrganisationId>

/**
 * An API key's id. Declared here rather than in Access because every actor carries one; Access
 * re-exports it (`Access.KeyId`).
 */
export const KeyId = IdInput.brand<"KeyId">()
export type KeyId = z.output<typeof KeyId>

/** Who makes a change: the API key, recorded where a record keeps its history (deal stages). */
export interface Actor {
  readonly keyId: KeyId | null
}

/** On the organisation: present on a test-mode organisation only. */
export const TestClock = z
  .object({
    frozen_at: Timestamp.nullable().describe(
      "the instant the clock stands at; null: the organisation runs on real time"
    )
  })
  .describe("present on a test-mode organisation only (created with test_mode: true)")
export type TestClock = z.infer<typeof TestClock>

/** The organisation's wire shape around a settings document (the whole one is `Settings.Organisation`). */
export const withSettings = <S extends z.ZodType>(settings: S) =>
  z.object({
    id: OrganisationId,
    name: z.string(),
    settings,
    // Absent on a live organisation: its business time is the real time, always.
    test_clock: TestClock.optional()
  })

/** Each context's part of the settings document, added by the context (`declare module`). */
// biome-ignore lint/suspicious/noEmptyInterface: the contexts' parts are merged into it.
export interface SettingsParts {}

export type Organisation = z.infer<ReturnType<typeof withSettings<typeof OrganisationSettings>>> & {
  readonly settings: OrganisationSettings & SettingsParts
}
