/**
 * One assistant tool: its name, the words an assistant reads to choose it, the scope it needs, the
 * truthful hints, one zod input schema (listed as JSON Schema and used to validate, with the same
 * `validation_failed` detail as REST), one zod output schema (listed as JSON Schema, so that a
 * client checks the structured result against it; the handler's result must compile against it)
 * and a handler calling the kernel's services.
 */
import { type Access, type Kernel, Wire } from "@crm/core"
import type * as Effect from "effect/Effect"
import { z } from "zod"

export type ToolServices = Kernel.Services

export interface ToolContext {
  readonly principal: Access.Principal
  /** Who acts, for records that keep it (deal stage history, tasks). */
  readonly actor: { readonly keyId: Access.KeyId }
}

export interface ToolAnnotations {
  /** The tool changes nothing. */
  readonly readOnlyHint: boolean
  /** The tool may overwrite or remove what is there (only meaningful when not read-only). */
  readonly destructiveHint: boolean
  /** Calling it again with the same arguments has no further effect. */
  readonly idempotentHint: boolean
}

export interface Tool {
  readonly name: string
  readonly title: string
  readonly description: string
  /** `read` tools need the key's `read` scope; `write` tools need `write` and a plan that allows writing. */
  readonly scope: "read" | "write"
  readonly annotations: ToolAnnotations
  readonly input: z.ZodObject
  /** The structured result; an object, as MCP's `outputSchema` must be. */
  readonly output: z.ZodObject
  /** Turns the result's inside forms into its wire forms (an `Amount` into a number); none for most tools. */
  readonly encode: Wire.Convert | undefined
  /** A batch (`{items: [...]}`): an item's validation issues are that item's `batch_failed`, as on REST. */
  readonly batch: boolean
  readonly run: (input: unknown, context: ToolContext) => Effect.Effect<unknown, unknown, ToolServices>
}

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly scope: "read" | "write"
  readonly annotations: ToolAnnotations
  readonly input: I
  /** The core's record or page schema where there is one, extended where the tool reshapes it. */
  readonly output: O
  readonly batch?: boolean
  readonly run: (
    input: z.output<I>,
    context: ToolContext
  ) => Effect.Effect<Wire.Given<z.output<O>>, unknown, ToolServices>
}

/** Keeps each handler typed against its own schemas while the list holds tools uniformly. */
export const tool = <I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): Tool => ({
  ...spec,
  // An unknown argument is refused as REST refuses an unknown field (`validation_failed` naming it), never ignored.
  input: spec.input.strict(),
  batch: spec.batch ?? false,
  encode: Wire.encoder(spec.output),
  // The server validates the arguments with `spec.input` before calling, so the erasure is safe.
  run: spec.run as Tool["run"]
})

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true }
/** Creates something new on every call. */
export const CREATES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false }
/** Changes existing fields to the given values: repeating it changes nothing more. */
export const UPDATES: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true }

/**
 * `limit` of a list tool: asking for more than the cap returns at most the cap (decisions page:
 * MCP caps clamp rather than refuse).
 */
export const limitInput = (cap: number, fallback = Math.min(cap, 20)) =>
  z
    .number()
    .int()
    .min(1)
    .default(fallback)
    .transform((limit) => Math.min(limit, cap))
    .describe(`how many items to return, at most ${cap} (a larger value returns ${cap}); default ${fallback}`)

/** `offset` of a list tool: how an assistant pages on when `has_more` was true. */
export const offsetInput = z
  .number()
  .int()
  .min(0)
  .default(0)
  .describe("items to skip: pass the number already seen to get the next items when has_more was true")

/** `limit` and `offset` of the plain list tools: the kernel's page is `{limit, offset}`. */
export const paging = { limit: limitInput(200, 50), offset: offsetInput }

/** The shape every list tool answers: `{items, has_more}`. */
export interface ListResult<A> {
  readonly items: ReadonlyArray<A>
  readonly has_more: boolean
}

export const listOf = <A>(page: { readonly data: ReadonlyArray<A>; readonly has_more: boolean }): ListResult<A> => ({
  items: page.data,
  has_more: page.has_more
})

/** The output schema of a list tool: `ListResult` of the given item schema. */
export const listResult = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    has_more: z.boolean().describe("true when more items match than `items` holds")
  })
