/**
 * Every assistant tool the server offers, in listing order. Each area adds one `...xTools` line.
 * The server refuses to start when two tools share a name (`assertUniqueNames`).
 */
import type { Tool } from "./Tool.js"
import { activityTools } from "./tools/activity.js"
import { analyticsTools } from "./tools/analytics.js"
import { catalogueTools } from "./tools/catalogue.js"
import { crmTools } from "./tools/crm.js"
import { siteTools } from "./tools/sites.js"

export const tools: ReadonlyArray<Tool> = [
  // Finding a record first (search, fetch), as an assistant usually starts.
  ...crmTools,
  ...activityTools,
  ...analyticsTools,
  ...catalogueTools,
  ...siteTools
]

/** Throws when two tools share a name: a listing must name each tool once. */
export const assertUniqueNames = (list: ReadonlyArray<Tool>): void => {
  const seen = new Set<string>()
  for (const entry of list) {
    if (seen.has(entry.name)) throw new Error(`duplicate MCP tool name: ${entry.name}`)
    seen.add(entry.name)
  }
}
