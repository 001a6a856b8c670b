/**
 * The assistant interface over the Model Context Protocol: one low-level SDK `Server` per
 * connection (per HTTP request when stateless, one per stdio process) answering `tools/list` and
 * `tools/call` from the tool list. A call runs: scope and plan check → refusal of what no input may
 * hold (nesting too deep, text PostgreSQL cannot store) → validation with the tool's zod schema (the REST `validation_failed` detail) →
 * the tool's handler. The core's tagged errors become tool errors `{"error": code, "detail": ...}`;
 * anything else is an `internal_error` whose cause is logged, never shown.
 */
import { Access, Batch, Validation, Wire } from "@crm/core"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { readRequestBody, requestBodyTooLargeMessage } from "@modelcontextprotocol/sdk/server/requestBody.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type Tool as ListedTool,
  ListToolsRequestSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { z } from "zod"
import type { Tool, ToolServices } from "./Tool.js"
import { tools as allTools, assertUniqueNames } from "./Tools.js"

export const SERVER_NAME = "crm-kernel"
export const SERVER_VERSION = "0.1.0"

/** The largest JSON-RPC body read over HTTP: the same limit as a REST body. */
export const MAX_BODY_BYTES = 1024 * 1024

export const INSTRUCTIONS =
  "This server is the CRM of one organisation (the one the API key belongs to): contacts, companies, " +
  "deals and pipelines, tasks, quotes, invoices, products, orders, tickets and custom records. " +
  "Use `search` to find contacts, companies or deals by name, email or title, then `fetch` with the id it " +
  "returns (`contact:<uuid>`, `company:<uuid>`, `deal:<uuid>`) to read one record; the other tools list, " +
  "summarise or change records by their UUID ids. Read tools never change anything; write tools need a key " +
  "with the `write` scope. Errors carry the same codes as the REST API (`not_found`, `validation_failed`, " +
  "`missing_scope:write`, ...)."

/**
 * `tools/call` as the transport reads it: any `arguments`, so that the SDK's own check of the request
 * answers `null` or an array with invalid params (-32602) instead of an internal error (-32603).
 */
const CallRequest = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() })
})

/** Who calls, and what each tool call costs first (stdio spends the key's budget per call). */
export interface Session {
  readonly principal: Access.Principal
  /**
   * Runs before every tool call; a failure with a `code` becomes the call's tool error. A principal
   * it returns replaces `principal` for that call: a long-lived stdio session re-reads its key, so a
   * revoked key or a changed plan takes effect at once, as over HTTP.
   */
  readonly beforeCall?: Effect.Effect<Access.Principal | undefined, unknown, ToolServices>
}

interface Coded {
  readonly code: string
  readonly detail?: unknown
}

const isCoded = (error: unknown): error is Coded =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"

const textResult = (value: unknown, isError: boolean): CallToolResult => ({
  ...(isError ? { isError: true } : {}),
  content: [{ type: "text", text: JSON.stringify(value) }]
})

/** A tool's success: the JSON text and, for an object, the same value as structured content. */
export const success = (value: unknown): CallToolResult => {
  const text = JSON.stringify(value ?? null)
  // Round-trip so the structured content is exactly the JSON the text carries (dates, undefined).
  const json: unknown = JSON.parse(text)
  return {
    content: [{ type: "text", text }],
    ...(json !== null && typeof json === "object" && !Array.isArray(json)
      ? { structuredContent: json as Record<string, unknown> }
      : {})
  }
}

export const toolError = (code: string, detail: unknown): CallToolResult =>
  textResult({ error: code, detail: detail ?? null }, true)

const INTERNAL = toolError("internal_error", "an unexpected error occurred; the server logged it")

/** An object schema as a listing carries it: JSON Schema without the dialect, typed `object` as MCP requires. */
const objectSchema = (schema: z.ZodObject, io: "input" | "output"): ListedTool["inputSchema"] => {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: Wire.asWritten
  }) as Record<string, unknown>
  return { ...json, type: "object" } as ListedTool["inputSchema"]
}

/**
 * One tool's listing: JSON Schema of the zod input (as the caller writes it) and of the output (as
 * the result's JSON carries it, which a client checks the structured content against), and the
 * truthful hints.
 */
export const describeTool = (entry: Tool): ListedTool => ({
  name: entry.name,
  title: entry.title,
  description: entry.description,
  inputSchema: objectSchema(entry.input, "input"),
  outputSchema: objectSchema(entry.output, "output"),
  annotations: {
    title: entry.title,
    readOnlyHint: entry.annotations.readOnlyHint,
    destructiveHint: entry.annotations.destructiveHint,
    idempotentHint: entry.annotations.idempotentHint,
    openWorldHint: false
  }
})

/** The checks and the handler of one call, as one Effect whose typed failures are the core's errors. */
export const callEffect = (
  entry: Tool,
  args: unknown,
  session: Session
): Effect.Effect<unknown, unknown, ToolServices> =>
  Effect.gen(function* () {
    const fresh = session.beforeCall === undefined ? undefined : yield* session.beforeCall
    const principal = fresh ?? session.principal
    yield* Access.authorize(principal, entry.scope, entry.scope === "write")
    yield* Validation.refuseUnsafe(args)
    const parsed = Validation.parse(entry.input, args)
    const input = yield* entry.batch ? Either.mapLeft(parsed, Batch.itemRefusal) : parsed
    return yield* entry.run(input, { principal, actor: { keyId: principal.key.id } })
  })

const rpcError = (status: number, code: number, message: string, data?: unknown): Response =>
  Response.json(
    { jsonrpc: "2.0", id: null, error: { code, message, ...(data === undefined ? {} : { data }) } },
    { status }
  )

/**
 * A JSON POST's body, read here rather than by the transport so that JSON nested too deeply is
 * refused (422, the REST `validation_failed` in the error's data) by a linear scan before anything
 * parses it; other requests (and other media types, which the transport refuses) are left to it.
 */
const boundedBody = async (request: Request): Promise<{ readonly value: unknown } | Response | undefined> => {
  if (request.method !== "POST" || !/^application\/json\s*(?:;|$)/i.test(request.headers.get("content-type") ?? "")) {
    return undefined
  }
  const read = await readRequestBody(request, MAX_BODY_BYTES)
  if (read.tooLarge) return rpcError(413, -32000, requestBodyTooLargeMessage(MAX_BODY_BYTES))
  const parsed = Validation.parseJson(read.text)
  if (Either.isRight(parsed)) return { value: parsed.right }
  return parsed.left instanceof SyntaxError
    ? rpcError(400, ErrorCode.ParseError, "Parse error: Invalid JSON")
    : rpcError(422, ErrorCode.InvalidRequest, "validation_failed", {
        error: parsed.left.code,
        detail: parsed.left.detail
      })
}

export interface McpKernel {
  /** Every tool, by name (names checked unique when the kernel is made). */
  readonly tools: ReadonlyArray<Tool>
  /** A fresh low-level server for one connection of the given caller. */
  readonly server: (session: Session, runtime: Runtime.Runtime<ToolServices>) => Server
  /**
   * Answers one stateless Streamable HTTP request (the caller authenticated and spent the budget).
   * With `insufficientScope`, a tool call that needs a scope the caller lacks is answered by it
   * (MCP authorization's step-up: a 403 that tells an OAuth client which scope to ask for) rather
   * than as a tool error.
   */
  readonly handle: (
    request: Request,
    principal: Access.Principal,
    runtime: Runtime.Runtime<ToolServices>,
    insufficientScope?: (scope: Access.Scope) => Response
  ) => Promise<Response>
  /** Serves a long-lived transport (stdio) for one caller. */
  readonly connect: (transport: Transport, session: Session, runtime: Runtime.Runtime<ToolServices>) => Promise<Server>
}

/** Builds the interface over a tool list; throws when two tools share a name. */
export const make = (list: ReadonlyArray<Tool> = allTools): McpKernel => {
  assertUniqueNames(list)
  const byName = new Map(list.map((entry) => [entry.name, entry]))
  // Listing is the same for every caller (a read-only key sees every tool too), so it is built once.
  let listed: ReadonlyArray<ListedTool> | undefined
  const listing = () => {
    listed ??= list.map(describeTool)
    return listed
  }

  const server = (session: Session, runtime: Runtime.Runtime<ToolServices>): Server => {
    const instance = new Server(
      { name: SERVER_NAME, title: "CRM kernel", version: SERVER_VERSION },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS }
    )
    instance.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...listing()] }))
    instance.setRequestHandler(CallRequest, async (request): Promise<CallToolResult> => {
      const entry = byName.get(request.params.name)
      if (entry === undefined) {
        throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}`)
      }
      const exit = await Runtime.runPromiseExit(runtime)(callEffect(entry, request.params.arguments ?? {}, session))
      if (Exit.isSuccess(exit)) return success(entry.encode === undefined ? exit.value : entry.encode(exit.value))
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure) && isCoded(failure.value)) return toolError(failure.value.code, failure.value.detail)
      await Runtime.runPromise(runtime)(
        Effect.logError("tool call failed", { tool: entry.name, cause: Cause.pretty(exit.cause) })
      ).catch(() => undefined)
      return INTERNAL
    })
    return instance
  }

  /** The scope a `tools/call` needs and the caller lacks, if it is one. */
  const missingScope = (message: unknown, principal: Access.Principal): Access.Scope | undefined => {
    if (typeof message !== "object" || message === null || (message as { method?: unknown }).method !== "tools/call") {
      return undefined
    }
    const name = (message as { params?: { name?: unknown } }).params?.name
    const entry = typeof name === "string" ? byName.get(name) : undefined
    if (entry === undefined || entry.scope === null) return undefined
    return principal.key.scopes.includes(entry.scope) ? undefined : entry.scope
  }

  const handle: McpKernel["handle"] = async (request, principal, runtime, insufficientScope) => {
    // Stateless: no server-initiated stream to offer, so GET is refused as the protocol allows.
    if (request.method === "GET") {
      return new Response(null, { status: 405, headers: { allow: "POST, DELETE" } })
    }
    const instance = server({ principal }, runtime)
    const transport = new WebStandardStreamableHTTPServerTransport({
      enableJsonResponse: true,
      maxRequestBodySize: MAX_BODY_BYTES
    })
    const body = await boundedBody(request)
    if (body instanceof Response) return body
    const missing = insufficientScope === undefined ? undefined : missingScope(body?.value, principal)
    if (missing !== undefined) return insufficientScope!(missing)
    await instance.connect(transport)
    try {
      return await transport.handleRequest(request, body === undefined ? {} : { parsedBody: body.value })
    } finally {
      // With JSON responses the answer is complete once returned; nothing outlives the request.
      await instance.close().catch(() => undefined)
    }
  }

  const connect: McpKernel["connect"] = async (transport, session, runtime) => {
    const instance = server(session, runtime)
    await instance.connect(transport)
    return instance
  }

  return { tools: list, server, handle, connect }
}
