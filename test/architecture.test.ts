/**
 * The dependency arrows of architecture.md, enforced: a package may import only what its arrow
 * allows, nothing imports an example, and no package reads process.env. Inside the core, the
 * settings document is assembled from the contexts' parts without arrows running back.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..")

const allowed: Record<string, ReadonlyArray<RegExp>> = {
  "packages/core": [/^effect(\/|$)/, /^zod$/],
  "packages/storage-memory": [/^@crm\/core$/, /^effect(\/|$)/],
  "packages/storage-pg": [
    /^@crm\/core$/,
    /^effect(\/|$)/,
    /^@effect\/(sql|sql-pg|experimental|platform|platform-node)(\/|$)/,
    /^@electric-sql\/pglite(\/|$)/,
    /^pg(\/|$)/,
    // PGlite's data directory is files on this host: its template copy and its one-process lock.
    /^node:(module|fs|os|path|crypto)$/
  ],
  "packages/http": [
    /^@crm\/core$/,
    /^effect(\/|$)/,
    /^@effect\/(platform|platform-node)(\/|$)/,
    /^zod$/,
    // The PDFs (pdf/DocumentPdf.ts): pdfkit, and the DejaVu fonts found from this module.
    /^pdfkit$/,
    /^node:module$/,
    /^node:(crypto|http|net|stream|stream\/web)$/,
    // The pages (`Pages.ts`) read their files, and Redoc's, from the installed packages.
    /^node:(fs\/promises|path|util|zlib)$/,
    // The metrics (`Metrics.ts`), in Prometheus's text format.
    /^prom-client$/,
    // The PDF workers (pdf/PdfWorkers.ts): a thread pool, its entry found beside this module.
    /^node:(worker_threads|os|fs|url)$/
  ],
  "packages/mcp": [/^@crm\/core$/, /^effect(\/|$)/, /^zod$/, /^@modelcontextprotocol\/sdk\//],
  // The kit drives the kernel (any storage) from fast-check, and runs the contract suite on vitest
  // (whose cases hash API keys and request bodies with node:crypto, as the HTTP layer does).
  "packages/testing": [
    /^@crm\/core$/,
    /^effect(\/|$)/,
    /^zod$/,
    /^fast-check$/,
    /^vitest$/,
    /^@effect\/vitest$/,
    /^node:crypto$/
  ],
  // The client speaks HTTP only: it knows the API from the OpenAPI document, not from the kernel.
  "packages/client": [/^openapi-fetch$/]
}

const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return sources(path)
    return path.endsWith(".ts") ? [path] : []
  })

const importsOf = (file: string): Array<string> => {
  const text = readFileSync(file, "utf8")
  return [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)[^"';]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)
  ].map((match) => match[1] ?? match[2]!)
}

describe("architecture", () => {
  for (const [pkg, rules] of Object.entries(allowed)) {
    it(`${pkg} imports only along its arrows`, () => {
      const offending: Array<string> = []
      let seen = 0
      for (const file of sources(join(root, pkg, "src"))) {
        for (const specifier of importsOf(file)) {
          seen++
          if (specifier.startsWith(".")) continue
          if (!rules.some((rule) => rule.test(specifier))) offending.push(`${relative(root, file)} → ${specifier}`)
        }
        if (/process\.env/.test(readFileSync(file, "utf8"))) offending.push(`${relative(root, file)} reads process.env`)
      }
      expect(offending).toEqual([])
      expect(seen).toBeGreaterThan(5)
    })
  }

  it("keeps the core free of I/O modules", () => {
    for (const file of sources(join(root, "packages/core/src"))) {
      expect(
        importsOf(file).filter((s) => s.startsWith("node:")),
        relative(root, file)
      ).toEqual([])
    }
  })

  describe("the settings hub and the organisation base", () => {
    const core = join(root, "packages/core/src")
    /** Each relative import of the core's files under `prefix`, as a path inside the core (`Deals/DealSettings.ts`). */
    const coreImports = (prefix: (path: string) => boolean) =>
      sources(core)
        .filter((file) => prefix(relative(core, file)))
        .flatMap((file) =>
          importsOf(file)
            .filter((specifier) => specifier.startsWith("."))
            .map((specifier) => ({
              from: relative(core, file),
              to: relative(core, resolve(dirname(file), specifier)).replace(/\.js$/, ".ts")
            }))
        )
    const isHub = (path: string) => path === "Settings.ts" || path.startsWith("Settings/")
    const isBase = (path: string) => path === "Organisation.ts" || path.startsWith("Organisation/")
    // A context is a service module with a folder of its own (`Deals.ts` + `Deals/`).
    const contextOf = (path: string): string | undefined => {
      const [head, ...rest] = path.split("/")
      const name = rest.length > 0 ? head! : head!.replace(/\.ts$/, "")
      return name !== "internal" && existsSync(join(core, name)) && statSync(join(core, name)).isDirectory()
        ? name
        : undefined
    }
    const isContext = (path: string) => {
      const context = contextOf(path)
      return context !== undefined && context !== "Settings" && context !== "Organisation"
    }

    it("takes from a context only its settings part", () => {
      const edges = coreImports(isHub)
      expect(edges.length).toBeGreaterThan(3)
      const offending = edges.filter(({ to }) => isContext(to) && !/^[^/]+\/[A-Za-z]*Settings\.ts$/.test(to))
      expect(offending).toEqual([])
    })

    it("is imported by no context but Access, which owns the organisations", () => {
      const offending = coreImports(
        (path) => !isHub(path) && path !== "index.ts" && contextOf(path) !== "Access"
      ).filter(({ to }) => isHub(to))
      expect(offending).toEqual([])
    })

    it("keeps the organisation base free of every context and of the hub", () => {
      const edges = coreImports(isBase)
      expect(edges.length).toBeGreaterThan(0)
      expect(edges.filter(({ to }) => isContext(to) || isHub(to))).toEqual([])
    })
  })
})
