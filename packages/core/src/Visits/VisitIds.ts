import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a visit: branded, so that no other kind of id (or plain string) is taken for one. */
export const VisitId = IdInput.brand<"VisitId">()
export type VisitId = z.output<typeof VisitId>
