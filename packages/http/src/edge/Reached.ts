/**
 * The request as far as the pipeline has got with it. Each stage that learns something (the route
 * matched, the key admitted) makes a new one; none changes one. Whatever stage a request ends at,
 * its answer and its log line are made from the one it reached: a failure after admission still
 * carries the budget headers and is logged with its key.
 *
 * A class with every field set in its constructor, so that all of them share one hidden class.
 */
import type { IncomingMessage } from "node:http"
import type { Access, Errors, People } from "@crm/core"
import type { Answer } from "../Edge.js"
import type { ErrorCode } from "../ErrorStatus.js"

/** The key's rate budget after this request: its limit per minute and what is left of it. */
export interface Budget {
  readonly limit: number
  readonly remaining: number
}

export class Reached {
  constructor(
    readonly incoming: IncomingMessage,
    readonly requestId: string,
    /** `performance.now()` when it arrived. */
    readonly started: number,
    /** The route template as served (`/api/v1/contacts/{id}`) or the endpoint's path; undefined until one matched. */
    readonly route: string | undefined,
    readonly principal: Access.Principal | undefined,
    readonly budget: Budget | undefined,
    /** Who calls without a key: the signed-in person (in an organisation), or a visitor signing in. */
    readonly caller: People.SessionPrincipal | People.Client | undefined
  ) {}

  static start(incoming: IncomingMessage, requestId: string): Reached {
    return new Reached(incoming, requestId, performance.now(), undefined, undefined, undefined, undefined)
  }

  matched(route: string): Reached {
    return new Reached(this.incoming, this.requestId, this.started, route, this.principal, this.budget, this.caller)
  }

  admitted(principal: Access.Principal, budget: Budget): Reached {
    return new Reached(this.incoming, this.requestId, this.started, this.route, principal, budget, this.caller)
  }

  called(caller: People.SessionPrincipal | People.Client): Reached {
    return new Reached(this.incoming, this.requestId, this.started, this.route, this.principal, this.budget, caller)
  }

  get method(): string {
    return this.incoming.method ?? "GET"
  }
}

/**
 * Everything the pipeline may fail with: an error whose code the status table knows, or the store
 * failing. A stage or handler failing with anything else does not compile, so no answer is a 500
 * merely because its code was left out of the table.
 */
export type EdgeFailure = { readonly code: ErrorCode; readonly detail: unknown } | Errors.StorageError

/**
 * What a path of the pipeline answers before the request's own headers (its id, the budget) are
 * added: a route's response as made or replayed, an endpoint's web `Response`, the metrics.
 */
export interface Served {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Answer["body"]
  readonly replayed: boolean
}
