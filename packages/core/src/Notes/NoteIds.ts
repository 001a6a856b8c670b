import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a note: branded, so that no other kind of id (or plain string) is taken for one. */
export const NoteId = IdInput.brand<"NoteId">()
export type NoteId = z.output<typeof NoteId>
