/**
 * Stage: the route of the method and path, with its path parameters. Ids are checked and lower-cased
 * here (a malformed id names no record: 404, as a missing one); a natural key (`{sku}`) is passed on
 * as it came and marked, so the input stage checks it as it checks any body string.
 */
import { HttpFailure } from "../Reply.js"
import type { Route } from "../Route.js"
import { isIdParam, type Mounted, makeRouter } from "../Router.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface Matched {
  readonly route: Route
  /** The route template as mounted (`/api/v1/contacts/{id}`), for the log and the metrics. */
  readonly template: string
  readonly params: Record<string, string>
  /** Whether a parameter is a natural key rather than an id. */
  readonly keyed: boolean
}

export const makeMatch = (table: ReadonlyArray<Mounted>) => {
  const match = makeRouter(table)
  return (method: string, pathname: string): Matched | HttpFailure<"not_found" | "method_not_allowed"> => {
    const found = match(method, pathname)
    if (found._tag === "NotFound") return HttpFailure.of("not_found", `no route for ${pathname}`)
    if (found._tag === "MethodNotAllowed") {
      return HttpFailure.of("method_not_allowed", `allowed: ${found.allow.join(", ")}`, {
        allow: found.allow.join(", ")
      })
    }
    const params: Record<string, string> = {}
    let keyed = false
    for (const [name, value] of Object.entries(found.params)) {
      if (!isIdParam(name)) {
        params[name] = value
        keyed = true
      } else if (!UUID.test(value)) return HttpFailure.of("not_found", "no such record")
      // Ids are stored in lower case: PostgreSQL's uuid type ignores case, the memory store's keys do not.
      else params[name] = value.toLowerCase()
    }
    return { route: found.mounted.route, template: found.mounted.template, params, keyed }
  }
}
