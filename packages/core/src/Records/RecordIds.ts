import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a custom record: branded, so that no other kind of id (or plain string) is taken for one. */
export const RecordId = IdInput.brand<"RecordId">()
export type RecordId = z.output<typeof RecordId>
