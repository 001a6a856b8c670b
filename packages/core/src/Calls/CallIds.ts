import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a call: branded, so that no other kind of id (or plain string) is taken for one. */
export const CallId = IdInput.brand<"CallId">()
export type CallId = z.output<typeof CallId>
