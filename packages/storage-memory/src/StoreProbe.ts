/** The in-process store answers whenever the process does, and has no schema to migrate. */
import { Health } from "@crm/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"

export const make = (): Context.Tag.Service<typeof Health.StoreProbe> =>
  Health.StoreProbe.of({ ping: Effect.void, missingMigrations: Effect.succeed([]), standby: Effect.succeed(undefined) })
