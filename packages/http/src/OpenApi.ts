/**
 * The OpenAPI 3.1 document, generated from the route table and the core's zod schemas. The named
 * shapes (`SchemaNames`) become `components.schemas`, referenced from the operations; zod writes the
 * references itself (`z.toJSONSchema` of a registry, with `uri`).
 */
import { Wire } from "@crm/core"
import { z } from "zod"
import { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_URL_BYTES } from "./Edge.js"
import { type ErrorCode, STATUS_BY_CODE } from "./ErrorStatus.js"
import { isWriting, pipelineCodes, type Route } from "./Route.js"
import { isIdParam, type Mounted } from "./Router.js"
import { ErrorBody, schemaNames } from "./SchemaNames.js"

type Json = Record<string, unknown>
type Io = "input" | "output"
const IOS: ReadonlyArray<Io> = ["input", "output"]

const COMPONENTS = "#/components/schemas/"

const refTo = (name: string): Json => ({ $ref: `${COMPONENTS}${name}` })

/** The names a piece of the document refers to, so that only the shapes it uses become components. */
const refsIn = (json: unknown, found: Set<string> = new Set()): Set<string> => {
  if (Array.isArray(json)) {
    for (const item of json) refsIn(item, found)
  } else if (json !== null && typeof json === "object") {
    for (const [key, value] of Object.entries(json)) {
      if (key === "$ref" && typeof value === "string") found.add(value.slice(COMPONENTS.length))
      else refsIn(value, found)
    }
  }
  return found
}

interface Shapes {
  /** A schema as the document gives it: a reference when it has a name, else written out. */
  readonly of: (schema: z.ZodType, io: Io) => Json
  /** A schema written out even when it has a name (a query's fields become parameters one by one). */
  readonly written: (schema: z.ZodType, io: Io) => Json
  /** The named shapes the document referred to through `of` and `written`, with those they refer to. */
  readonly components: () => Record<string, Json>
}

/**
 * Every schema of the table, made by zod twice: as a request is read (`input`: a default makes a
 * field optional) and as a response is written (`output`), each with the names of that direction. A
 * schema without a name is registered under a key no name takes (`~1`, ...), so that the references
 * to named shapes inside it are made the same way, and is written out where it is used.
 */
const shapesOf = (table: ReadonlyArray<Mounted>): Shapes => {
  const registries = { input: z.registry<{ id: string }>(), output: z.registry<{ id: string }>() }
  const named = new Map<string, z.ZodType>()
  for (const [schema, name] of schemaNames) {
    for (const io of IOS) {
      if ((named.get(name[io]) ?? schema) !== schema)
        throw new Error(`SchemaNames gives two shapes the name ${name[io]}`)
      named.set(name[io], schema)
      registries[io].add(schema, { id: name[io] })
    }
  }
  let unnamed = 0
  const register = (schema: z.ZodType | undefined) => {
    if (schema === undefined || registries.input.has(schema)) return
    const id = `~${++unnamed}`
    for (const io of IOS) registries[io].add(schema, { id })
  }
  for (const { route } of table) {
    register(route.query)
    register(route.body?.schema)
    register(route.success.schema)
  }
  const emit = (io: Io): Record<string, Json> => {
    const { schemas } = z.toJSONSchema(registries[io], {
      io,
      target: "draft-2020-12",
      unrepresentable: "any",
      override: Wire.asWritten,
      uri: (id) => `${COMPONENTS}${id}`
    })
    const bare: Record<string, Json> = {}
    for (const [key, { $id: _id, $schema: _dialect, ...json }] of Object.entries(schemas)) bare[key] = json
    return bare
  }
  const made = { input: emit("input"), output: emit("output") }
  const used = { input: new Set<string>(), output: new Set<string>() }
  const written = (schema: z.ZodType, io: Io): Json => {
    const json = made[io][registries[io].get(schema)!.id]!
    for (const name of refsIn(json)) used[io].add(name)
    return json
  }
  const of = (schema: z.ZodType, io: Io): Json => {
    const key = registries[io].get(schema)!.id
    if (!named.has(key)) return written(schema, io)
    used[io].add(key)
    return refTo(key)
  }
  const reached = (io: Io): Array<string> => {
    const found = new Set<string>()
    const pending = [...used[io]]
    while (pending.length > 0) {
      const name = pending.pop()!
      if (found.has(name)) continue
      // zod refers to a schema without a name only when it is nested in another or in itself (it
      // then puts it under `__shared`); the document has no place for it but under a name.
      if (!named.has(name))
        throw new Error(`a schema without a name (${name}) is nested in another: name it in SchemaNames`)
      found.add(name)
      pending.push(...refsIn(made[io][name]))
    }
    return [...found]
  }
  const components = (): Record<string, Json> => {
    const byName = new Map<string, Json>()
    for (const io of IOS) {
      for (const name of reached(io)) {
        const json = made[io][name]!
        const other = byName.get(name)
        if (other !== undefined && JSON.stringify(other) !== JSON.stringify(json)) {
          throw new Error(`${name} reads differently in a request and in a response: name the two apart in SchemaNames`)
        }
        byName.set(name, json)
      }
    }
    return Object.fromEntries([...byName].sort(([a], [b]) => (a < b ? -1 : 1)))
  }
  return { of, written, components }
}

export const errorCodesOf = (mounted: Mounted): ReadonlyArray<ErrorCode> => [
  ...new Set([
    ...mounted.route.errors,
    ...pipelineCodes(
      mounted.route,
      mounted.segments.some((segment) => segment.startsWith("{"))
    )
  ])
]

/** A write with the session cookie sends the CSRF token too: both schemes at once. */
const securityOf = (route: Route): ReadonlyArray<Json> => {
  switch (route.guard.kind) {
    case "key":
      return [{ apiKey: [] }]
    case "admin":
      return [{ adminToken: [] }]
    case "session":
      return [isWriting(route) ? { sessionCookie: [], csrfToken: [] } : { sessionCookie: [] }]
    case "visitor":
    case "public":
      return []
  }
}

const operation = (mounted: Mounted, shapes: Shapes): Json => {
  const { route } = mounted
  const parameters: Array<Json> = []
  for (const segment of mounted.segments) {
    if (segment.startsWith("{")) {
      const name = segment.slice(1, -1)
      parameters.push({
        name,
        in: "path",
        required: true,
        schema: isIdParam(name) ? { type: "string", format: "uuid" } : { type: "string" }
      })
    }
  }
  if (route.query !== undefined) {
    const fields = shapes.written(route.query, "input").properties as Record<string, Json>
    for (const [name, schema] of Object.entries(fields)) {
      parameters.push({
        name,
        in: "query",
        required: false,
        schema,
        ...(typeof schema.description === "string" ? { description: schema.description } : {})
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
  const { success } = route
  const responses: Json = {
    [String(success.status)]:
      success.file !== undefined
        ? {
            description: success.description,
            content: { [success.file]: { schema: { type: "string", format: "binary" } } }
          }
        : success.schema === undefined
          ? { description: success.description }
          : {
              description: success.description,
              content: { "application/json": { schema: shapes.of(success.schema, "output") } }
            }
  }
  if (success.created !== undefined && success.schema !== undefined) {
    responses["201"] = {
      description: success.created,
      content: { "application/json": { schema: shapes.of(success.schema, "output") } }
    }
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.join(", "),
      content: {
        "application/json": {
          // The error body, with the codes this status can carry here (a sibling of a bare `$ref` is
          // lost on generators that replace the reference, so the reference goes in `allOf`).
          schema: {
            allOf: [shapes.of(ErrorBody, "output")],
            properties: { error: { enum: codes } }
          }
        }
      }
    }
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    security: securityOf(route),
    ...(route.guard.kind === "key" ? { "x-required-scope": route.guard.scope } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body === undefined
      ? {}
      : {
          requestBody: {
            required: !route.body.patch && !route.body.optional,
            content: {
              [route.body.raw === undefined ? "application/json" : "application/x-ndjson"]: {
                schema: shapes.of(route.body.schema, "input")
              }
            }
          }
        }),
    responses
  }
}

export const document = (table: ReadonlyArray<Mounted>): Json => {
  const shapes = shapesOf(table)
  const paths: Record<string, Json> = {}
  for (const mounted of table) {
    paths[mounted.template] = {
      ...(paths[mounted.template] ?? {}),
      [mounted.route.method.toLowerCase()]: operation(mounted, shapes)
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Organisation CRM API",
      version: "1.0.0",
      description: [
        "One organisation's CRM over HTTP. Every request is scoped to the organisation owning the API key.",
        "An organisation's people sign in under /auth/v1 (a session cookie) and manage its keys, hooks, settings,",
        "people and audit trail under /settings/v1/organisations/{id}; a write with the cookie sends X-CSRF-Token.",
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
      schemas: shapes.components(),
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "an API key, mck_..." },
        adminToken: { type: "http", scheme: "bearer", description: "the operator's CRM_ADMIN_TOKEN" },
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "crm_session",
          description:
            "a signed-in person's session, set by POST /auth/v1/sign-in (and the other ways of signing in); HttpOnly"
        },
        csrfToken: {
          type: "apiKey",
          in: "header",
          name: "X-CSRF-Token",
          description:
            "the session's csrf_token (GET /auth/v1/session), sent with every write made with the session cookie; a write whose Origin is another site's is refused too (403 csrf_refused)"
        }
      }
    },
    paths
  }
}
