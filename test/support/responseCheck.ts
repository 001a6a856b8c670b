/**
 * Every answer the black-box suites get is checked against the OpenAPI document the server
 * publishes: an operation the document names must answer a status it lists for that operation,
 * and a JSON body must match that status's schema (error codes included, as each status lists
 * its codes). A route, field or code that drifts from the document fails the test that met it.
 *
 * Paths the document does not name (unknown routes, the pages, /metrics, /api/mcp) are not checked.
 *
 * `checkedFetch` is `fetch` with that check, for the tests that call the server directly; the
 * test client (`server.ts`) calls the server through it too.
 */
import { Api } from "@crm/http"
import Ajv2020 from "ajv/dist/2020.js"
import addFormats from "ajv-formats"

interface Operation {
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema: unknown }> }>
}

const document = Api.openApiDocument() as unknown as {
  readonly paths: Record<string, Record<string, Operation>>
}

const DOCUMENT_ID = "crm:openapi"
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
addFormats(ajv)
ajv.addSchema(document as object, DOCUMENT_ID)

// Fixed paths first, so that /contacts/batch is not taken for /contacts/{id}.
const templates = Object.keys(document.paths)
  .map((template) => ({
    template,
    parameters: template.split("{").length,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`)
  }))
  .sort((a, b) => a.parameters - b.parameters)

const pointer = (...segments: ReadonlyArray<string>) =>
  segments.map((segment) => segment.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")

const validators = new Map<string, ReturnType<typeof ajv.compile>>()
const validatorAt = (template: string, method: string, status: string) => {
  const ref = `${DOCUMENT_ID}#/${pointer("paths", template, method, "responses", status, "content", "application/json", "schema")}`
  let validate = validators.get(ref)
  if (validate === undefined) {
    validate = ajv.compile({ $ref: ref })
    validators.set(ref, validate)
  }
  return validate
}

const operationAt = (method: string, url: string) => {
  const path = new URL(url).pathname
  const template = templates.find((candidate) => candidate.pattern.test(path))?.template
  const operation = template === undefined ? undefined : document.paths[template]?.[method.toLowerCase()]
  return template === undefined || operation === undefined ? undefined : { template, operation }
}

/** Why this answer is not what the document says, or undefined when it is (or is not documented). */
export const responseDrift = (
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  body: unknown
): string | undefined => {
  const found = operationAt(method, url)
  if (found === undefined) return undefined
  const { template, operation } = found
  const name = `${method} ${template} answered ${status}`
  const documented = operation.responses[String(status)]
  if (documented === undefined) {
    return `${name}, a status the OpenAPI document does not list (${Object.keys(operation.responses).join(", ")})`
  }
  if (documented.content?.["application/json"] === undefined) return undefined
  if (!(contentType ?? "").startsWith("application/json")) {
    return `${name} with content-type ${contentType}, where the OpenAPI document says application/json`
  }
  const validate = validatorAt(template, method.toLowerCase(), String(status))
  if (validate(body)) return undefined
  return `${name} with a body the OpenAPI document does not allow: ${ajv.errorsText(validate.errors, { separator: "; " })}\n${JSON.stringify(body).slice(0, 2000)}`
}

/** An answer's body as JSON, undefined when there is none or it does not parse (a schema then says so). */
export const jsonOf = (text: string): unknown => {
  try {
    return text === "" ? undefined : JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * `fetch`, throwing the drift of an answer from an operation the document names. The caller gets
 * the answer unread: the check reads a copy, and only of a JSON body, since an event stream may
 * never end and a PDF is the caller's to read or not.
 */
export const checkedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await fetch(input, init)
  const method = init?.method ?? (input instanceof Request ? input.method : "GET")
  if (operationAt(method, response.url) === undefined) return response
  const contentType = response.headers.get("content-type")
  const json = (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "application/json"
  const body = json ? jsonOf(await response.clone().text()) : undefined
  const drift = responseDrift(method, response.url, response.status, contentType, body)
  if (drift === undefined) return response
  await response.body?.cancel()
  throw new Error(drift)
}
