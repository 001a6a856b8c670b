import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a custom record: branded, so that no other kind of id (or plain string) is taken for one. */
export const RecordId = IdInput.brand<"RecordId">()
export type RecordId = z.output<typeof RecordId>

/** The id of a custom record type of the organisation's settings: branded, so that no other kind of id (or plain string) is taken for one. */
export const RecordTypeId = IdInput.brand<"RecordTypeId">()
export type RecordTypeId = z.output<typeof RecordTypeId>
