import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a quote: branded, so that no other kind of id (or plain string) is taken for one. */
export const QuoteId = IdInput.brand<"QuoteId">()
export type QuoteId = z.output<typeof QuoteId>
