/** Document numbers: one series per kind (and quotes), counted per issue year. */
import type { OrganisationSettings } from "../Organisation.js"

export type Series = keyof OrganisationSettings["numbering"]

/** `<prefix><year>-<counter>`, e.g. `2026-000001` for normal invoices or `ZF2026-0001` for advances. */
export const format = (settings: OrganisationSettings, series: Series, year: number, counter: number): string => {
  const { prefix, digits } = settings.numbering[series]
  return `${prefix}${year}-${String(counter).padStart(digits, "0")}`
}
