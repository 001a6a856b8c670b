/** The in-process store answers whenever the process does. */
import { Health } from "@crm/core"
import * as Effect from "effect/Effect"

export const make = () => Health.StoreProbe.of({ ping: Effect.void })
