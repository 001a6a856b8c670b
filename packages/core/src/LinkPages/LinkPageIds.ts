import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a link page: branded, so that no other kind of id (or plain string) is taken for one. */
export const LinkPageId = IdInput.brand<"LinkPageId">()
export type LinkPageId = z.output<typeof LinkPageId>
