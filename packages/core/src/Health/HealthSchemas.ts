import { z } from "zod"

/**
 * Where a store with a standby stands with it: "ok" while reads may go to it, "behind" while it
 * lags more than the store allows and "down" while it cannot be reached (reads go to the primary
 * in both). `lag_ms`: how long ago the primary was where the standby now is; null when unknown.
 */
export const StandbyStatus = z.object({
  state: z.enum(["ok", "behind", "down"]),
  lag_ms: z.number().int().nonnegative().nullable()
})
export type StandbyStatus = z.infer<typeof StandbyStatus>

/**
 * The body of a positive health or readiness check; a negative one is an error body. Readiness
 * names the standby where the store has one: a standby behind or down leaves the process ready,
 * since the primary answers its reads.
 */
export const HealthStatus = z.object({ status: z.literal("ok"), standby: StandbyStatus.optional() })
export type HealthStatus = z.infer<typeof HealthStatus>
