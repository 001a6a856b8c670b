/**
 * `@crm/client`: a typed client of the CRM's REST API, admin API and session APIs (sign-in and an
 * organisation's settings), over openapi-fetch, typed by the types openapi-typescript makes of the
 * server's OpenAPI document (`src/generated/openapi.ts`).
 */
export {
  type AdminClient,
  type AdminClientOptions,
  type AdminPaths,
  type ApiClient,
  type ApiPaths,
  type AuthClient,
  type AuthPaths,
  type CallOptions,
  type ClientOptions,
  type CrmClient,
  type CrmResult,
  createAdminClient,
  createAuthClient,
  createClient,
  createSettingsClient,
  type ErrorCodeOf,
  type RetryOptions,
  type SessionClientOptions,
  type SettingsClient,
  type SettingsPaths
} from "./Client.js"
export { type ClientErrorCode, CrmError, type CrmErrorFields } from "./CrmError.js"
export type { components, operations, paths } from "./generated/openapi.js"

import type { components } from "./generated/openapi.js"

/** The document's named shapes: `Schemas["Contact"]`, `Schemas["ContactCreate"]`, `Schemas["Error"]`, ... */
export type Schemas = components["schemas"]
