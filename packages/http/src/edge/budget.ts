/**
 * Stage: what an admitted key may do with this request. Its rate budget was spent by admission (the
 * core's `Access.admit`, in the store, so that every process shares it); here the route's scope and
 * the organisation's plan are checked, and the budget becomes the answer's headers, which a refused
 * request gets too.
 */
import { Access, type Errors } from "@crm/core"
import type * as Either from "effect/Either"
import { isWriting, type KeyGuard, type Route } from "../Route.js"
import type { Budget } from "./Reached.js"

export const permits = (
  route: Route,
  guard: KeyGuard,
  principal: Access.Principal
): Either.Either<void, Errors.MissingScope | Errors.PlanRefused> =>
  Access.authorize(principal, guard.scope, isWriting(route))

/** The budget as headers: on every answer to an admitted key, refusals included. */
export const budgetHeaders = (budget: Budget): Record<string, string> => ({
  "x-ratelimit-limit": String(budget.limit),
  "x-ratelimit-remaining": String(budget.remaining)
})
