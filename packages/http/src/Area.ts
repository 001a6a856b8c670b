/**
 * What one area of the API brings to the served table and to its OpenAPI document: its routes
 * under each prefix and the names of its shapes. Each route module declares its area once, beside
 * its routes; `Areas.ts` lists them, and the table (`Api.ts`) and the named shapes
 * (`SchemaNames.ts`) are read off that list.
 */
import type { z } from "zod"
import type { Route } from "./Route.js"

/** A shape's name in requests (`input`) and in responses (`output`). */
export interface Name {
  readonly input: string
  readonly output: string
}

export type Named = readonly [schema: z.ZodType, name: Name]

export interface Area {
  /** Served under `/api/v1`. */
  readonly api?: ReadonlyArray<Route>
  /** Served under `/admin/v1`. */
  readonly admin?: ReadonlyArray<Route>
  /** Served under `/auth/v1`: signing in and out, and the session (a person's, with a cookie). */
  readonly auth?: ReadonlyArray<Route>
  /** Served under `/settings/v1`: an organisation's settings as its signed-in people manage them. */
  readonly settings?: ReadonlyArray<Route>
  /** Served at the root (the health checks). */
  readonly root?: ReadonlyArray<Route>
  /**
   * The shapes the document names (its `components.schemas`), which client generators turn into
   * named types. A core shape is named as the core exports it (`named`), so the name is written
   * once, where the shape is defined; the area only chooses which of them the document names.
   */
  readonly schemaNames?: ReadonlyArray<Named>
}

type SchemaKeys<M> = { [K in keyof M]: M[K] extends z.ZodType ? K : never }[keyof M] & string

/** The shapes of a core namespace by their exported names. */
export const named = <M>(module: M, ...keys: ReadonlyArray<SchemaKeys<M>>): ReadonlyArray<Named> =>
  keys.map((key) => [module[key] as z.ZodType, { input: key, output: key }])
