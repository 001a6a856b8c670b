import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a return: branded, so that no other kind of id (or plain string) is taken for one. */
export const ReturnId = IdInput.brand<"ReturnId">()
export type ReturnId = z.output<typeof ReturnId>
