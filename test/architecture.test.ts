/**
 * The dependency arrows of architecture.md, enforced: a package may import only what its arrow
 * allows, nothing imports an example, and no package reads process.env. Inside the core, the
 * settings document is assembled from the contexts' parts without arrows running back.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
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
    // The PGlite client writes its messages with pg's own serialiser (`internal/pgliteWire.ts`).
    /^pg-protocol$/,
    // PGlite's data directory is files on this host: its template copy and its one-process lock.
    /^node:(module|fs|os|path|crypto)$/
  ],
  "packages/http": [
    /^@crm\/core$/,
    /^effect(\/|$)/,
    /^@effect\/(platform|platform-node)(\/|$)/,
    /^zod$/,
    /^node:(crypto|http|net|stream|stream\/web)$/,
    // The metrics (`Metrics.ts`), in Prometheus's text format.
    /^prom-client$/
  ],
  // The PDFs implement the transport's DocumentRenderer port; the transport knows neither pdfkit nor the fonts.
  "packages/pdf": [
    /^@crm\/core$/,
    /^@crm\/http$/,
    /^effect(\/|$)/,
    // The layout (DocumentPdf.ts): pdfkit, and the DejaVu fonts found from this module.
    /^pdfkit$/,
    /^node:module$/,
    // The workers (PdfWorkers.ts): a thread pool, its entry found beside this module.
    /^node:(worker_threads|os|fs|path|url)$/
  ],
  // The MCP endpoint's authorization server: oidc-provider over the core's OAuthStore port, in front
  // of the transport it hands its tokens to; the transport knows no OAuth library.
  "packages/oauth": [
    /^@crm\/core$/,
    /^@crm\/http$/,
    /^effect(\/|$)/,
    /^oidc-provider$/,
    // Token ids hashed, the signing key made (off the event loop), a consent form read off node's request.
    /^node:(crypto|http|util)$/
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
  "packages/client": [/^openapi-fetch$/],
  // `/docs` and `/admin`, answered in front of the transport's pipeline (its `Edge` answers): their
  // files, and Redoc's, read from the installed packages, compressed and hashed.
  "packages/pages": [
    /^@crm\/core$/,
    /^@crm\/http$/,
    /^effect(\/|$)/,
    /^node:(crypto|fs\/promises|http|module|path|url|util|zlib)$/
  ]
}

/** Code that runs in a browser, inside a package above: it knows the API through the client alone. */
const browser: Record<string, ReadonlyArray<RegExp>> = {
  "packages/pages/src/admin": [/^@crm\/client$/],
  "packages/pages/src/settings": [/^@crm\/client$/],
  "packages/pages/src/shared": [/^@crm\/client$/]
}
const inBrowser = (file: string) => Object.keys(browser).some((dir) => file.startsWith(join(root, dir, "/")))

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
      for (const file of sources(join(root, pkg, "src")).filter((file) => !inBrowser(file))) {
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

  for (const [dir, rules] of Object.entries(browser)) {
    it(`${dir} (the browser's) imports only along its arrows`, () => {
      const offending = sources(join(root, dir)).flatMap((file) =>
        importsOf(file)
          .filter((specifier) => !specifier.startsWith(".") && !rules.some((rule) => rule.test(specifier)))
          .map((specifier) => `${relative(root, file)} → ${specifier}`)
      )
      expect(offending).toEqual([])
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

  // A zod upgrade that moves a definition must be met in one file: every other walker folds over its nodes.
  it("leaves zod's schema definitions to the one walker, core's SchemaWalk.ts", () => {
    const walker = join(root, "packages/core/src/SchemaWalk.ts")
    const code = (dir: string): Array<string> =>
      readdirSync(dir).flatMap((entry) => {
        if (entry === "node_modules" || entry === "dist") return []
        const path = join(dir, entry)
        if (statSync(path).isDirectory()) return code(path)
        return /\.(ts|js|mjs)$/.test(path) ? [path] : []
      })
    const files = ["packages", "test", "examples"].flatMap((dir) => code(join(root, dir)))
    expect(files).toContain(walker)
    // This rule names what it looks for, so it is the one other file that may.
    const readers = files.filter(
      (file) => file !== walker && file !== import.meta.filename && readFileSync(file, "utf8").includes("_zod")
    )
    expect(readers.map((file) => relative(root, file))).toEqual([])
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

  /**
   * A module's imports inside its package, type-only ones included: a cycle even of types means two
   * modules that cannot be read, moved or published one without the other.
   */
  const localImports = (file: string): Array<string> =>
    [...readFileSync(file, "utf8").matchAll(/(?:^|\n)\s*(?:import|export)[^"';]*?from\s+["'](\.{1,2}\/[^"']+)["']/g)]
      .map((match) => resolve(dirname(file), match[1]!.replace(/\.js$/, ".ts")))
      .filter((target) => existsSync(target))

  /** Every strongly connected set of more than one module (or a module importing itself), by Tarjan. */
  const cyclesOf = (files: ReadonlyArray<string>): Array<Array<string>> => {
    const graph = new Map(files.map((file) => [file, localImports(file)]))
    const order = new Map<string, number>()
    const low = new Map<string, number>()
    const stack: Array<string> = []
    const cycles: Array<Array<string>> = []
    const visit = (node: string) => {
      order.set(node, order.size)
      low.set(node, order.get(node)!)
      stack.push(node)
      for (const next of graph.get(node) ?? []) {
        if (!order.has(next)) {
          visit(next)
          low.set(node, Math.min(low.get(node)!, low.get(next)!))
        } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, order.get(next)!))
      }
      if (low.get(node) !== order.get(node)) return
      const members = stack.splice(stack.indexOf(node))
      if (members.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(members)
    }
    for (const file of graph.keys()) if (!order.has(file)) visit(file)
    return cycles
  }

  const packageSources = ["packages", "examples"].flatMap((group) =>
    readdirSync(join(root, group))
      .map((name) => join(root, group, name, "src"))
      .filter((dir) => existsSync(dir))
  )

  it.each(packageSources.map((dir) => [relative(root, dir), dir]))("%s has no import cycle", (_, dir) => {
    expect(cyclesOf(sources(dir)).map((cycle) => cycle.map((file) => relative(dir, file)))).toEqual([])
  })

  it("finds a cycle of type-only imports, and none in a chain", () => {
    const dir = mkdtempSync(join(tmpdir(), "cycles-"))
    writeFileSync(join(dir, "A.ts"), 'import type { B } from "./B.js"\nexport type A = B\n')
    writeFileSync(
      join(dir, "B.ts"),
      'import { c } from "./C.js"\nexport type { A } from "./A.js"\nexport const b = c\n'
    )
    writeFileSync(join(dir, "C.ts"), "export const c = 1\n")
    const files = ["A.ts", "B.ts", "C.ts"].map((name) => join(dir, name))
    expect(cyclesOf(files).map((cycle) => cycle.map((file) => relative(dir, file)).sort())).toEqual([["A.ts", "B.ts"]])
    expect(cyclesOf([files[1]!, files[2]!])).toEqual([])
    rmSync(dir, { recursive: true })
  })
})

describe("contexts registered once", () => {
  /** The files of `dir` (inside the repo) that declare what `declares` matches, and whether `hub` imports each. */
  const unlisted = (dir: string, declares: RegExp, hub: string) => {
    const text = readFileSync(join(root, hub), "utf8")
    const declaring = sources(join(root, dir)).filter((file) => declares.test(readFileSync(file, "utf8")))
    const missing = declaring
      .map((file) => `./${relative(dirname(join(root, hub)), file).replace(/\.ts$/, ".js")}`)
      .filter((specifier) => !text.includes(`"${specifier}"`))
    return { declaring: declaring.length, missing }
  }

  it("joins every context's definition to the kernel", () => {
    const { declaring, missing } = unlisted("packages/core/src", /= defineContext\(/, "packages/core/src/Kernel.ts")
    expect(declaring).toBeGreaterThan(20)
    expect(missing).toEqual([])
  })

  it("serves every area a route module declares", () => {
    const { declaring, missing } = unlisted("packages/http/src/routes", /: Area = /, "packages/http/src/Areas.ts")
    expect(declaring).toBeGreaterThan(15)
    expect(missing).toEqual([])
  })
})
