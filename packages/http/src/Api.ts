/**
 * The served route table, read off the areas (`Areas.ts`): REST under /api/v1, the admin API under
 * /admin/v1, signing in under /auth/v1, an organisation's settings for its people under
 * /settings/v1, health checks at the root.
 */
import { areas } from "./Areas.js"
import * as OpenApi from "./OpenApi.js"
import { type Mounted, mount } from "./Router.js"
import { openApiRoute } from "./routes/meta.js"

export const API_PREFIX = "/api/v1"
export const ADMIN_PREFIX = "/admin/v1"
export const AUTH_PREFIX = "/auth/v1"
export const SETTINGS_PREFIX = "/settings/v1"

export interface TableOptions {
  /**
   * The OpenAPI document as JSON text, made beforehand from this same table (`crm openapi` at build
   * time): a server that serves it spares making it, about a tenth of a second, at start.
   */
  readonly openApiDocument?: string
}

export const makeTable = (options: TableOptions = {}): ReadonlyArray<Mounted> => {
  let cached = options.openApiDocument
  const table: Array<Mounted> = [
    ...mount(API_PREFIX, [
      ...areas.flatMap((area) => area.api ?? []),
      openApiRoute(() => (cached ??= JSON.stringify(OpenApi.document(table))))
    ]),
    ...mount(
      ADMIN_PREFIX,
      areas.flatMap((area) => area.admin ?? [])
    ),
    ...mount(
      AUTH_PREFIX,
      areas.flatMap((area) => area.auth ?? [])
    ),
    ...mount(
      SETTINGS_PREFIX,
      areas.flatMap((area) => area.settings ?? [])
    ),
    ...mount(
      "",
      areas.flatMap((area) => area.root ?? [])
    )
  ]
  return table
}

export const table: ReadonlyArray<Mounted> = makeTable()
export const openApiDocument = () => OpenApi.document(table)
