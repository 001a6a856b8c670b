import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a deal: branded, so that no other kind of id (or plain string) is taken for one. */
export const DealId = IdInput.brand<"DealId">()
export type DealId = z.output<typeof DealId>
