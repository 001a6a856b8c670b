/// <reference types="vite/client" />
/**
 * What a context's namespace offers: every schema (and id) its schemas modules export, under the
 * same name. A name the namespace declares itself (`export * as QuoteStatus`) silently shadows the
 * schema of that name from `export *`, which embedders then cannot reach.
 */
import { describe, expect, it } from "vitest"
import * as Core from "../src/index.js"

const schemaModules = import.meta.glob<Record<string, unknown>>("../src/*/*{Schemas,Ids}.ts", { eager: true })

describe("the core's namespaces", () => {
  const namespaces = Core as unknown as Record<string, Record<string, unknown> | undefined>
  const cases = Object.entries(schemaModules)
    .map(([path, module]) => ({ path, context: path.split("/")[2]!, module }))
    .filter(({ context }) => namespaces[context] !== undefined)

  it("finds the schemas modules of the contexts", () => {
    expect(cases.length).toBeGreaterThan(30)
  })

  it.each(cases)("$context offers every export of $path under its own name", ({ context, module }) => {
    const namespace = namespaces[context]!
    const hidden = Object.keys(module).filter((name) => namespace[name] !== module[name])
    expect(hidden).toEqual([])
  })
})
