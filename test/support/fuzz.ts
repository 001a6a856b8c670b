/**
 * A fuzz of the served OpenAPI document: for every operation it names, requests built from the
 * document alone (its parameters and request schemas), mostly valid, some mutated the way an
 * attacker or a careless client would (NUL characters, unpaired surrogates, JSON nested far past
 * any limit, long strings, wrong types, unknown fields, a hostile `Idempotency-Key`). Every answer
 * must be a status and body the document lists for the operation, and never a 5xx.
 *
 * Shared by the suite (`test/http/fuzz.test.ts`, a fixed seed) and the benchmark scripts
 * (`npm run bench:fuzz`, a larger run).
 */
import { Edge } from "@crm/http"
import fc from "fast-check"
import { PASSWORD } from "./people.js"
import { jsonOf, responseDrift } from "./responseCheck.js"
import { ADMIN_TOKEN, type TestServer } from "./server.js"

type Schema = Record<string, any>

export interface Operation {
  readonly method: string
  readonly template: string
  readonly operation: Schema
}

export interface FuzzRequest {
  readonly method: string
  /** Path and query, already encoded as they go on the wire. */
  readonly target: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
}

export interface Session {
  readonly cookie: string
  readonly csrfToken: string
}

export interface Credentials {
  /** A key of an organisation holding every scope. */
  readonly key: string
  readonly adminToken: string
  /**
   * An owner of that organisation signed in: the `Cookie` header and the session's CSRF token,
   * so that the session's routes are fuzzed past `session_required` and `csrf_refused`.
   */
  readonly session: Session
  /**
   * Another person of it, for `/auth/v1`: the fuzz signs them out (everywhere, too) and ends their
   * sessions, which must leave the owner's session to the settings routes.
   */
  readonly visitor: Session
  /** Ids of records that exist, so that some requests reach past `not_found`. */
  readonly ids: ReadonlyArray<string>
}

export interface Outcome {
  readonly request: FuzzRequest
  readonly status: number
  /** Why the answer is not one the document allows, if it is not. */
  readonly drift: string | undefined
}

export const operationsOf = (document: Schema): ReadonlyArray<Operation> =>
  Object.entries(document.paths as Record<string, Schema>).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), template, operation }))
  )

/** Text PostgreSQL cannot hold, and text merely long or odd. */
const hostileText = fc.constantFrom(
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "x".repeat(100_000),
  "'; DROP TABLE contacts; --",
  "%00",
  "\u202e\ufeff",
  "💥".repeat(300)
)

/**
 * JSON nested past the limit: arrays or objects, from just past it to a depth that once stalled a
 * server. Too deep for `JSON.stringify` to write, it stands in the value as a placeholder string
 * that `jsonText` replaces with the nesting itself.
 */
const deepJson = fc
  .tuple(fc.constantFrom(65, 1_000, 50_000), fc.constantFrom("a", "o"))
  .map(([depth, kind]) => `⟪deep${depth}${kind}⟫`)

const nesting = (depth: number, kind: string): string =>
  kind === "a" ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`

/** A generated value as JSON text, its placeholders replaced by the nesting they stand for. */
export const jsonText = (value: unknown): string =>
  (JSON.stringify(value) ?? "null").replace(/"⟪deep(\d+)([ao])⟫"/g, (_, depth: string, kind: string) =>
    nesting(Number(depth), kind)
  )

const wrongType = fc.constantFrom<unknown>(null, true, 0, -1, 1e308, -0.5, "", "not valid", [], {}, [[]])

/** What stands where any value may: a wrong type, a deep nest, hostile text. */
const hostileValue = fc.oneof(wrongType, deepJson, hostileText)

const isoDate = fc
  .date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2200-01-01T00:00:00Z"), noInvalidDate: true })
  .map((date) => date.toISOString())

/**
 * Values a JSON schema admits, mostly; at every node one time in `1 / mutate` a hostile value
 * instead. Depth-capped, since component schemas may be recursive.
 */
export const arbitraryOf = (
  document: Schema,
  schema: Schema | undefined,
  ids: ReadonlyArray<string>,
  mutate: number,
  depth = 0
): fc.Arbitrary<unknown> => {
  const valid = validOf(document, schema ?? {}, ids, mutate, depth)
  return mutate === 0
    ? valid
    : fc.oneof({ arbitrary: valid, weight: mutate - 1 }, { arbitrary: hostileValue, weight: 1 })
}

const resolve = (document: Schema, schema: Schema): Schema => {
  let at = schema
  for (let hops = 0; typeof at.$ref === "string" && hops < 20; hops++) {
    at = at.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce((node: Schema, part: string) => node?.[part.replaceAll("~1", "/").replaceAll("~0", "~")], document)
  }
  return at ?? {}
}

const validOf = (
  document: Schema,
  raw: Schema,
  ids: ReadonlyArray<string>,
  mutate: number,
  depth: number
): fc.Arbitrary<unknown> => {
  const schema = resolve(document, raw)
  const next = (inner: Schema | undefined) => arbitraryOf(document, inner, ids, mutate, depth + 1)
  if (depth > 6) return fc.constant(null)
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
  const options = schema.anyOf ?? schema.oneOf
  if (Array.isArray(options))
    return fc.oneof(...options.map((option: Schema) => validOf(document, option, ids, mutate, depth)))
  if (Array.isArray(schema.allOf))
    return validOf(
      document,
      Object.assign({}, ...schema.allOf.map((s: Schema) => resolve(document, s))),
      ids,
      mutate,
      depth
    )
  const type = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? undefined : [schema.type]
  if (type !== undefined && type.length > 1) {
    return fc.oneof(...type.map((one: string) => validOf(document, { ...schema, type: one }, ids, mutate, depth)))
  }
  switch (type?.[0]) {
    case "null":
      return fc.constant(null)
    case "boolean":
      return fc.boolean()
    case "integer":
    case "number": {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000)
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000)
      return type[0] === "integer"
        ? fc.integer({ min: Math.max(Math.ceil(min), -(2 ** 31)), max: Math.min(Math.floor(max), 2 ** 31) })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
    }
    case "string":
      return stringOf(schema, ids)
    case "array": {
      const maxLength = Math.min(schema.maxItems ?? 3, 3)
      return fc.array(next(schema.items), { minLength: Math.min(schema.minItems ?? 0, maxLength), maxLength })
    }
    case "object":
    case undefined: {
      const properties: Record<string, Schema> = schema.properties ?? {}
      if (type === undefined && Object.keys(properties).length === 0) return fc.jsonValue({ maxDepth: 2 })
      const required = new Set<string>(schema.required ?? [])
      const fields = Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, next(inner)]))
      const record = fc.record(fields, { requiredKeys: [...required].filter((name) => name in fields) })
      const extra =
        typeof schema.additionalProperties === "object"
          ? fc.dictionary(fc.string({ maxLength: 8 }), next(schema.additionalProperties), { maxKeys: 3 })
          : fc.constant({})
      return fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known }))
    }
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

const stringOf = (schema: Schema, ids: ReadonlyArray<string>): fc.Arbitrary<string> => {
  switch (schema.format) {
    case "uuid":
      return ids.length === 0 ? fc.uuid() : fc.oneof(fc.constantFrom(...ids), fc.uuid())
    case "date-time":
      return isoDate
    case "date":
      return isoDate.map((iso) => iso.slice(0, 10))
    case "email":
      return fc.emailAddress()
    case "uri":
      return fc.webUrl()
  }
  if (typeof schema.pattern === "string") {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length <= (schema.maxLength ?? 10_000))
    } catch {
      // A pattern fast-check cannot generate from (lookarounds): plain text, which the server may refuse.
    }
  }
  const minLength = Math.min(schema.minLength ?? 0, 40)
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 40, 40)) })
}

/**
 * A path or query value on the wire. Lone surrogates cannot be percent-encoded as UTF-8, so they
 * go as the bytes a careless client would send (CESU-8 for U+D800).
 */
const encoded = (value: unknown): string => {
  const text =
    typeof value === "string"
      ? value.replace(/⟪deep(\d+)([ao])⟫/g, (_, depth: string, kind: string) => nesting(Number(depth), kind))
      : jsonText(value)
  try {
    return encodeURIComponent(text)
  } catch {
    return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, "")) + "%ED%A0%80"
  }
}

/** One request to `operation`, with credentials by its security (the admin token, a key, or none). */
export const requestOf = (
  document: Schema,
  { method, template, operation }: Operation,
  credentials: Credentials,
  mutate: number
): fc.Arbitrary<FuzzRequest> => {
  const parameters: ReadonlyArray<Schema> = (operation.parameters ?? []).map((p: Schema) => resolve(document, p))
  const inPath = parameters.filter((p) => p.in === "path")
  const inQuery = parameters.filter((p) => p.in === "query")
  const media = operation.requestBody?.content ?? {}
  const bodyType = Object.keys(media)[0]
  const schemes: ReadonlyArray<string> = (operation.security ?? document.security ?? []).flatMap((s: Schema) =>
    Object.keys(s)
  )
  const authorization = schemes.includes("adminToken")
    ? `Bearer ${credentials.adminToken}`
    : schemes.includes("apiKey")
      ? `Bearer ${credentials.key}`
      : undefined
  // An organisation's settings are reached only through its own id (the first of `ids`): any other
  // id there is 404 before the route's own rules are met.
  const idsFor = (p: Schema) =>
    template.startsWith("/settings/v1/organisations/{id}") && p.name === "id"
      ? credentials.ids.slice(0, 1)
      : credentials.ids
  const param = (p: Schema) => arbitraryOf(document, p.schema, idsFor(p), mutate)
  return fc
    .record({
      path: fc.tuple(...inPath.map(param)),
      query: fc.tuple(...inQuery.map((p) => fc.option(param(p), { nil: undefined, freq: p.required ? 100 : 2 }))),
      body:
        bodyType === undefined
          ? fc.constant(undefined)
          : bodyType === "application/json"
            ? arbitraryOf(document, media[bodyType].schema, credentials.ids, mutate).map((value) =>
                JSON.stringify(value)
              )
            : fc
                .array(arbitraryOf(document, media[bodyType].schema, credentials.ids, mutate), { maxLength: 3 })
                .map((lines) => lines.map(jsonText).join("\n")),
      idempotencyKey: fc.option(fc.oneof(fc.uuid(), fc.constantFrom("\u0000", "é", "x".repeat(300))), { freq: 4 })
    })
    .map(({ path, query, body, idempotencyKey }) => {
      let target = template
      inPath.forEach((p, index) => {
        target = target.replace(`{${p.name}}`, encoded(path[index]))
      })
      const search = inQuery
        .map((p, index) =>
          query[index] === undefined ? undefined : `${encodeURIComponent(p.name)}=${encoded(query[index])}`
        )
        .filter((part) => part !== undefined)
        .join("&")
      const headers: Record<string, string> = {}
      if (authorization !== undefined) headers.authorization = authorization
      if (schemes.includes("sessionCookie")) {
        const session = template.startsWith("/auth/v1") ? credentials.visitor : credentials.session
        headers.cookie = session.cookie
        if (method !== "GET") headers["x-csrf-token"] = session.csrfToken
      }
      if (body !== undefined) headers["content-type"] = bodyType!
      // fetch refuses header values it cannot send (a NUL, a non-Latin-1 character), so only printable ones go.
      if (idempotencyKey !== null && /^[\x20-\x7e]*$/.test(idempotencyKey)) headers["idempotency-key"] = idempotencyKey
      return { method, target: search === "" ? target : `${target}?${search}`, headers, body }
    })
}

/** Sends one request and judges its answer against the document. */
export const send = async (base: string, request: FuzzRequest): Promise<Outcome> => {
  const url = `${base}${request.target}`
  let response: Response
  try {
    response = await fetch(url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body })
    })
  } catch (error) {
    // A request line past the header limit is answered 431 and the connection closed at once (the
    // README says so), which a client still sending may see as a reset. Any other request left
    // without an answer is as wrong as a 5xx.
    const overLimit = request.target.length > Edge.MAX_HEADER_BYTES
    return {
      request,
      status: 0,
      drift: overLimit ? undefined : `no answer: ${String((error as Error).cause ?? error)}`
    }
  }
  const text = await response.text()
  const contentType = response.headers.get("content-type")
  const json = (contentType ?? "").startsWith("application/json") ? jsonOf(text) : undefined
  return {
    request,
    status: response.status,
    drift: responseDrift(request.method, url, response.status, contentType, json)
  }
}

/** `runs` requests spread over every operation, in a fixed order for a seed. */
export const requestsFor = (
  document: Schema,
  credentials: Credentials,
  options: { readonly seed: number; readonly runs: number; readonly mutate: number }
): ReadonlyArray<FuzzRequest> => {
  const operations = operationsOf(document)
  const each = Math.max(1, Math.ceil(options.runs / operations.length))
  return operations.flatMap((operation, index) =>
    fc.sample(requestOf(document, operation, credentials, options.mutate), {
      numRuns: each,
      seed: options.seed + index
    })
  )
}

/** Counts by status, for the run's summary. */
export const tally = (outcomes: ReadonlyArray<Outcome>): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const { status } of outcomes) counts[status] = (counts[status] ?? 0) + 1
  return counts
}

const ALL_SCOPES = ["read", "write", "quotes:write", "invoices:write", "forms:submit", "analytics:write"]

/**
 * An organisation with a key of every scope and a few records, so that path ids and references
 * sometimes reach past `not_found`; and the document the server serves.
 */
export const prepare = async (
  server: TestServer
): Promise<{ readonly credentials: Credentials; readonly document: Schema }> => {
  const { organisation, key, client } = await server.tenant({ scopes: ALL_SCOPES })
  const contact = await client.post("/contacts", { first_name: "Fuzz", email: "fuzz@example.test" })
  const line = { name: "Fuzz", quantity: 1, unit_price: 10, vat_rate: 21 }
  const created = [
    contact,
    await client.post("/companies", { name: "Fuzz Ltd", domain: "fuzz.test" }),
    await client.post("/deals", { title: "Fuzz deal", contact_id: contact.body.id }),
    await client.post("/products", { sku: "FUZZ-1", name: "Fuzz", unit_price: 10, vat_rate: 21 }),
    await client.post("/quotes", { contact_id: contact.body.id, items: [line] }),
    await client.post("/invoices", { contact_id: contact.body.id, items: [line] }),
    await client.post("/tasks", { title: "Fuzz task" })
  ]
  const refused = created.find((answer) => answer.status !== 201)
  if (refused !== undefined) throw new Error(`fixture not created: ${refused.status} ${refused.text}`)
  const signedIn = async (email: string, role: "owner" | "member"): Promise<Session> => {
    const person = server.person()
    const accepted = await person.accept((await server.invite(organisation.id, email, role)).token, "Fuzz", PASSWORD)
    if (accepted.status !== 200) throw new Error(`${email} not signed in: ${accepted.status} ${accepted.text}`)
    return { cookie: person.cookie()!, csrfToken: person.csrfToken()! }
  }
  return {
    credentials: {
      key,
      adminToken: ADMIN_TOKEN,
      session: await signedIn("fuzz-owner@example.test", "owner"),
      visitor: await signedIn("fuzz-member@example.test", "member"),
      ids: [organisation.id, ...created.map((answer) => answer.body.id)]
    },
    document: (await client.get("/openapi.json")).body
  }
}

/** Sends every request in order and returns what came back. */
export const run = async (base: string, requests: ReadonlyArray<FuzzRequest>): Promise<ReadonlyArray<Outcome>> => {
  const outcomes: Array<Outcome> = []
  for (const request of requests) outcomes.push(await send(base, request))
  return outcomes
}
