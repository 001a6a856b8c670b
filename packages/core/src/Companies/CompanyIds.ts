import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a company: branded, so that no other kind of id (or plain string) is taken for one. */
export const CompanyId = IdInput.brand<"CompanyId">()
export type CompanyId = z.output<typeof CompanyId>
