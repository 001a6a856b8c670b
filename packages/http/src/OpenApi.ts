/** The OpenAPI 3.1 document, generated from the route table and the core's zod schemas. */
import { z } from "zod"
import { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_URL_BYTES } from "./App.js"
import { type ErrorCode, STATUS_BY_CODE } from "./ErrorStatus.js"
import { isWriting, usesStore } from "./Route.js"
import type { Mounted } from "./Router.js"

type Json = Record<string, unknown>

const jsonSchema = (schema: z.ZodType, io: "input" | "output"): Json =>
  z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Json

const stripDialect = ({ $schema: _ignored, ...rest }: Json): Json => rest

const ErrorBody = {
  type: "object",
  required: ["error", "detail", "request_id"],
  properties: {
    error: { type: "string", description: "the error code" },
    detail: { description: "what went wrong; for validation_failed a list of {path, message, code}" },
    request_id: { type: "string" }
  }
}

/** Errors any route of a kind can answer, beyond those its handler names. */
const commonErrors = (mounted: Mounted): Array<ErrorCode> => {
  const { route } = mounted
  const codes: Array<ErrorCode> = []
  if (route.guard.kind === "key") {
    codes.push(
      "missing_bearer_token",
      "invalid_api_key",
      "expired_api_key",
      `missing_scope:${route.guard.scope}`,
      "rate_limited"
    )
    if (isWriting(route)) codes.push("plan_refused")
  }
  if (route.guard.kind === "admin") codes.push("missing_bearer_token", "invalid_api_key")
  if (mounted.segments.some((segment) => segment.startsWith("{"))) codes.push("not_found")
  if (route.query !== undefined) codes.push("validation_failed")
  if (route.body !== undefined)
    codes.push("invalid_json", "unsupported_media_type", "payload_too_large", "validation_failed")
  if (route.body?.patch === true) codes.push("no_fields_to_update")
  if (isWriting(route) && route.guard.kind === "key") codes.push("idempotency_in_progress", "idempotency_key_reused")
  // Any request may be too long before its route is even known; any that needs the store may
  // find it unreachable.
  codes.push("method_not_allowed", "uri_too_long", "headers_too_large", "internal_error")
  if (usesStore(route)) codes.push("service_unavailable")
  return codes
}

export const errorCodesOf = (mounted: Mounted): ReadonlyArray<ErrorCode> => [
  ...new Set([...mounted.route.errors, ...commonErrors(mounted)])
]

const operation = (mounted: Mounted): Json => {
  const { route } = mounted
  const parameters: Array<Json> = []
  for (const segment of mounted.segments) {
    if (segment.startsWith("{")) {
      parameters.push({
        name: segment.slice(1, -1),
        in: "path",
        required: true,
        schema: { type: "string", format: "uuid" }
      })
    }
  }
  if (route.query !== undefined) {
    const shape = route.query.shape as Record<string, z.ZodType>
    for (const [name, schema] of Object.entries(shape)) {
      const described = stripDialect(jsonSchema(schema, "input"))
      parameters.push({
        name,
        in: "query",
        required: false,
        schema: described,
        ...(typeof described.description === "string" ? { description: described.description } : {})
      })
    }
  }
  if (isWriting(route) && route.guard.kind === "key") {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "1 to 255 printable ASCII characters; a repeat within 24 hours replays the first response",
      schema: { type: "string", minLength: 1, maxLength: 255 }
    })
  }
  const byStatus = new Map<number, Array<string>>()
  for (const code of errorCodesOf(mounted)) {
    const status = STATUS_BY_CODE[code]
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const responses: Json = {
    [String(route.success.status)]:
      route.success.schema === undefined
        ? { description: route.success.description }
        : {
            description: route.success.description,
            content: { "application/json": { schema: stripDialect(jsonSchema(route.success.schema, "output")) } }
          }
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.join(", "),
      content: {
        "application/json": {
          schema: { ...ErrorBody, properties: { ...ErrorBody.properties, error: { type: "string", enum: codes } } }
        }
      }
    }
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.guard.kind === "key"
      ? { security: [{ apiKey: [] }], "x-required-scope": route.guard.scope }
      : route.guard.kind === "admin"
        ? { security: [{ adminToken: [] }] }
        : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body === undefined
      ? {}
      : {
          requestBody: {
            required: !route.body.patch && !route.body.optional,
            content: {
              [route.body.raw === "ndjson" ? "application/x-ndjson" : "application/json"]: {
                schema: stripDialect(jsonSchema(route.body.schema, "input"))
              }
            }
          }
        }),
    responses
  }
}

export const document = (table: ReadonlyArray<Mounted>): Json => {
  const paths: Record<string, Json> = {}
  for (const mounted of table) {
    paths[mounted.template] = {
      ...(paths[mounted.template] ?? {}),
      [mounted.route.method.toLowerCase()]: operation(mounted)
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Organisation CRM API",
      version: "1.0.0",
      description: [
        "One organisation's CRM over HTTP. Every request is scoped to the organisation owning the API key.",
        "Lists answer {data, limit, offset, has_more}: default limit 50, maximum 200, newest first.",
        `Bodies are JSON, at most ${MAX_BODY_BYTES} bytes. Rate limit: 120 requests per rolling minute per key.`,
        `A URL (path and query) is at most ${MAX_URL_BYTES} bytes (else 414 uri_too_long); the request line and`,
        `headers together at most ${MAX_HEADER_BYTES} bytes (else 431 headers_too_large). A request that is not`,
        "valid HTTP/1.1 gets 400 bad_request, one whose headers are not in within 60 seconds 408 request_timeout;",
        "all of these before any route is matched, with the error body and request_id of every other error.",
        "While the database cannot be reached, requests that need it get 503 service_unavailable with",
        "Retry-After; GET /readyz answers 503 too meanwhile, GET /healthz 200 as long as the process runs."
      ].join(" ")
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "an API key, mck_..." },
        adminToken: { type: "http", scheme: "bearer", description: "the operator's CRM_ADMIN_TOKEN" }
      }
    },
    paths
  }
}
