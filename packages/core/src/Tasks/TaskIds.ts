import type { z } from "zod"
import { IdInput } from "../Wire.js"

/** The id of a task: branded, so that no other kind of id (or plain string) is taken for one. */
export const TaskId = IdInput.brand<"TaskId">()
export type TaskId = z.output<typeof TaskId>
