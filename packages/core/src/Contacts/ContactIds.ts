import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a contact: branded, so that no other kind of id (or plain string) is taken for one. */
export const ContactId = IdInput.brand<"ContactId">()
export type ContactId = z.output<typeof ContactId>
