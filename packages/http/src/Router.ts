/** Path matching for the route table: literal segments and `{name}` parameters, indexed by segment count. */
import type { Method, Route } from "./Route.js"

export interface Mounted {
  readonly route: Route
  /** The full path template as served, e.g. `/api/v1/contacts/{id}`. */
  readonly template: string
  readonly segments: ReadonlyArray<string>
}

export type Match =
  | { readonly _tag: "Found"; readonly mounted: Mounted; readonly params: Record<string, string> }
  | { readonly _tag: "MethodNotAllowed"; readonly allow: ReadonlyArray<Method> }
  | { readonly _tag: "NotFound" }

/**
 * Whether a `{name}` segment carries a record id (a uuid: `id`, `delivery_id`), rather than a
 * natural key such as an upsert's email, domain or SKU (text, kept as sent).
 */
export const isIdParam = (name: string): boolean => name === "id" || name.endsWith("_id")

const split = (path: string): Array<string> => path.split("/").filter((segment) => segment.length > 0)

export const mount = (prefix: string, routes: ReadonlyArray<Route>): Array<Mounted> =>
  routes.map((route) => {
    const template = `${prefix}${route.path}`
    return { route, template, segments: split(template) }
  })

export const makeRouter = (table: ReadonlyArray<Mounted>) => {
  const bySize = new Map<number, Array<Mounted>>()
  for (const mounted of table) {
    const list = bySize.get(mounted.segments.length) ?? []
    list.push(mounted)
    bySize.set(mounted.segments.length, list)
  }
  return (method: string, path: string): Match => {
    const parts = split(path)
    const candidates = bySize.get(parts.length) ?? []
    const allow: Array<Method> = []
    for (const mounted of candidates) {
      const params: Record<string, string> = {}
      let matched = true
      for (let i = 0; i < parts.length; i++) {
        const segment = mounted.segments[i]!
        if (segment.startsWith("{")) {
          const value = safeDecode(parts[i]!)
          if (value === undefined) {
            matched = false
            break
          }
          params[segment.slice(1, -1)] = value
        } else if (segment !== parts[i]) {
          matched = false
          break
        }
      }
      if (!matched) continue
      if (mounted.route.method === method) return { _tag: "Found", mounted, params }
      allow.push(mounted.route.method)
    }
    return allow.length > 0 ? { _tag: "MethodNotAllowed", allow } : { _tag: "NotFound" }
  }
}

const safeDecode = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
