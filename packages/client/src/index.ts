/**
 * `@crm/client`: a typed client of the CRM's REST API and admin API, over openapi-fetch, typed by
 * the types openapi-typescript makes of the server's OpenAPI document (`src/openapi.ts`).
 */
export type { components, operations, paths } from "./openapi.js"
