import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a user of the organisation's settings: branded, so that no other kind of id (or plain string) is taken for one. */
export const UserId = IdInput.brand<"UserId">()
export type UserId = z.output<typeof UserId>
