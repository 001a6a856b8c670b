import { z } from "zod"

/** The body of a positive health or readiness check; a negative one is an error body. */
export const HealthStatus = z.object({ status: z.literal("ok") })
export type HealthStatus = z.infer<typeof HealthStatus>
