import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** Host names to addresses, for the target check at subscription. No addresses: the name does not resolve. */
export class Resolver extends Context.Tag("@crm/core/Resolver")<
  Resolver,
  { readonly resolve: (hostname: string) => Effect.Effect<ReadonlyArray<string>> }
>() {}
