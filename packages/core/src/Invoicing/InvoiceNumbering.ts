/** Document numbers: one series per kind (and quotes), counted per issue year. */
import type { Settings } from "../Settings/SettingsSchemas.js"

export type Series = keyof Settings["numbering"]

/** `<prefix><year>-<counter>`, e.g. `2026-000001` for normal invoices or `ZF2026-0001` for advances. */
export const format = (settings: Settings, series: Series, year: number, counter: number): string => {
  const { prefix, digits } = settings.numbering[series]
  return `${prefix}${year}-${String(counter).padStart(digits, "0")}`
}
