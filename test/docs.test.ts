/**
 * The README and the guides under docs/ against the code: the npm scripts, `crm` commands and
 * options, environment variables, files and HTTP paths they name exist; their TypeScript snippets
 * name real exports; their JSON parses (the settings example by the settings schema); the MCP guide
 * lists every tool with its scope; every relative link and anchor resolves. Nothing starts a server:
 * the OpenAPI document is built from the route table, and `crm` answers `--help` in this process.
 *
 * `docs/benchmarks/history.md` is a record of past runs, kept as written: only its links are checked.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { People, Settings } from "@crm/core"
import { Api } from "@crm/http"
import { tools } from "@crm/mcp"
import * as Effect from "effect/Effect"
import { describe, expect, it, vi } from "vitest"
import { run as runCrm } from "../examples/server/src/Commands.js"

const root = resolve(import.meta.dirname, "..")
const read = (path: string) => readFileSync(join(root, path), "utf8")

interface Fence {
  readonly lang: string
  readonly text: string
  readonly line: number
}

interface Span {
  readonly text: string
  readonly line: number
}

interface Doc {
  readonly path: string
  readonly text: string
  readonly fences: ReadonlyArray<Fence>
  /** The text outside fences, with each fence's lines blanked (so line numbers stay). */
  readonly prose: string
  /** Inline code spans of the prose, white space inside them collapsed. */
  readonly spans: ReadonlyArray<Span>
}

const markdownUnder = (dir: string): Array<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? markdownUnder(join(dir, entry.name))
      : entry.name.endsWith(".md")
        ? [join(dir, entry.name)]
        : []
  )

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length

const parse = (path: string): Doc => {
  const text = read(path)
  const lines = text.split("\n")
  const fences: Array<Fence> = []
  const prose: Array<string> = []
  let open: { marker: string; lang: string; line: number; body: Array<string> } | undefined
  lines.forEach((line, index) => {
    const fence = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(line)
    if (open === undefined && fence !== null) {
      open = { marker: fence[1]!, lang: fence[2]!.toLowerCase(), line: index + 1, body: [] }
      prose.push("")
    } else if (open !== undefined && line.trim().startsWith(open.marker)) {
      fences.push({ lang: open.lang, text: open.body.join("\n"), line: open.line })
      open = undefined
      prose.push("")
    } else if (open !== undefined) {
      open.body.push(line)
      prose.push("")
    } else prose.push(line)
  })
  const proseText = prose.join("\n")
  const spans = [...proseText.matchAll(/`([^`]+)`/g)].map((match) => ({
    text: match[1]!.replace(/\s+/g, " ").trim(),
    line: lineAt(proseText, match.index)
  }))
  return { path, text, fences, prose: proseText, spans }
}

const docs = ["README.md", ...markdownUnder("docs")].map(parse)
const HISTORY = join("docs", "benchmarks", "history.md")
/** The docs that describe the code as it is now (the benchmark history describes it as it was). */
const current = docs.filter((doc) => doc.path !== HISTORY)

const isShell = (fence: Fence) => ["", "sh", "bash", "shell", "console"].includes(fence.lang)

/** Each command line of the shell fences (continuations joined), with where it stands. */
const shellLines = (doc: Doc): Array<Span> =>
  doc.fences.filter(isShell).flatMap((fence) => {
    const joined = fence.text.replace(/\\\n/g, " ")
    return joined.split("\n").map((text, index) => ({ text, line: fence.line + 1 + index }))
  })

/** Where the shell and inline code of the docs name something, for the checks that read both. */
const codeOf = (doc: Doc): Array<Span> => [...shellLines(doc), ...doc.spans]

const at = (doc: Doc, span: { line: number }) => `${doc.path}:${span.line}`

/** A command ends where the shell starts another (or a comment). */
const commandEnd = /\s(?:\||&&|;|>|<|#)|\)|$/

describe("the README", () => {
  it("is under 300 lines", () => {
    expect(read("README.md").split("\n").length).toBeLessThan(300)
  })

  it("keeps the two commands and the test commands CI runs", () => {
    const readme = read("README.md")
    expect(readme).toContain("npm install && npm start")
    expect(readme).toContain("npm test")
    for (const script of [...read(".ci/run").matchAll(/\bnpm run ([\w:.-]+)/g)].map((match) => match[1]!)) {
      expect(readme, `.ci/run calls npm run ${script}`).toContain(`npm run ${script}`)
    }
  })
})

describe("the README's role matrix", () => {
  it("is `Roles.MATRIX`: every action, every role, the same cells", () => {
    const lines = read("README.md").split("\n")
    const header = lines.findIndex((line) => /^\| Action \|/.test(line))
    expect(header).toBeGreaterThan(-1)
    const cells = (line: string) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim())
    const roles = cells(lines[header]!).slice(2)
    expect(roles).toEqual(People.Role.options)
    const after = lines.slice(header + 2)
    const rows = after.slice(
      0,
      after.findIndex((line) => !line.startsWith("|"))
    )
    const matrix = Object.fromEntries(
      rows.map((row) => {
        const [action, , ...allowed] = cells(row)
        for (const cell of allowed) expect(["yes", "no"], row).toContain(cell)
        return [
          action!.replace(/`/g, ""),
          Object.fromEntries(roles.map((role, index) => [role, allowed[index] === "yes"]))
        ]
      })
    )
    expect(matrix).toEqual(People.MATRIX)
  })
})

describe("npm scripts named in the docs", () => {
  const rootPackage = JSON.parse(read("package.json")) as { workspaces: Array<string>; scripts: Record<string, string> }
  const workspaces = new Map(
    rootPackage.workspaces.map((dir) => {
      const pkg = JSON.parse(read(join(dir, "package.json"))) as { name: string; scripts?: Record<string, string> }
      return [pkg.name, pkg.scripts ?? {}] as const
    })
  )

  it("exist in the package.json they run in", () => {
    const problems: Array<string> = []
    for (const doc of current) {
      for (const span of codeOf(doc)) {
        for (const match of span.text.matchAll(/\bnpm\s+(?:run\s+([\w:.-]+)|(test|start|stop|restart)\b)/g)) {
          const script = match[1] ?? match[2]!
          const rest = span.text.slice(match.index)
          const command = rest.slice(0, rest.slice(1).search(commandEnd) + 1)
          const workspace = /(?:--workspace[= ]|-w\s+)(\S+)/.exec(command)?.[1]
          const scripts = workspace === undefined ? rootPackage.scripts : workspaces.get(workspace)
          if (scripts === undefined) problems.push(`${at(doc, span)}: no workspace ${workspace}`)
          else if (!(script in scripts)) {
            problems.push(
              `${at(doc, span)}: npm ${match[0].slice(4)} (no script "${script}" in ${workspace ?? "package.json"})`
            )
          }
        }
      }
    }
    expect(problems).toEqual([])
  })
})

describe("crm commands named in the docs", () => {
  const word = /^[a-z][a-z-]*(?:\|[a-z][a-z-]*)*$/

  /** Each `crm ...` invocation: its command words (alternatives expanded) and the options it passes. */
  const invocations = current.flatMap((doc) =>
    codeOf(doc).flatMap((span) =>
      [...span.text.matchAll(/(?:^|[\s(=])crm\s+(.*)$/g)].flatMap((match) => {
        const rest = match[1]!
        const command = rest.slice(0, rest.search(commandEnd))
        const tokens = command.split(/\s+/).filter((token) => token !== "")
        const words: Array<string> = []
        for (const token of tokens) {
          if (!word.test(token)) break
          words.push(token)
        }
        if (words.length === 0) return []
        const options = tokens.filter((token) => token.startsWith("--")).map((token) => token.split("=")[0]!)
        const expand = (prefix: ReadonlyArray<string>, remaining: ReadonlyArray<string>): Array<Array<string>> =>
          remaining.length === 0
            ? [[...prefix]]
            : remaining[0]!.split("|").flatMap((alternative) => expand([...prefix, alternative], remaining.slice(1)))
        return expand([], words).map((path) => ({ where: at(doc, span), path, options }))
      })
    )
  )

  /** What `crm <words> --help` prints, in this process (exit code restored). */
  const help = async (words: ReadonlyArray<string>): Promise<string> => {
    const printed: Array<string> = []
    const log = vi.spyOn(console, "log").mockImplementation((...parts) => void printed.push(parts.join(" ")))
    const error = vi.spyOn(console, "error").mockImplementation((...parts) => void printed.push(parts.join(" ")))
    const exitCode = process.exitCode
    try {
      await Effect.runPromise(runCrm([...words, "--help"]))
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the help is printed with ANSI colours
      return printed.join("\n").replace(/\x1b\[[0-9;]*m/g, "")
    } finally {
      log.mockRestore()
      error.mockRestore()
      process.exitCode = exitCode
    }
  }

  it("are commands the command line accepts, with options it takes", async () => {
    expect(invocations.length).toBeGreaterThan(10)
    const problems: Array<string> = []
    const helps = new Map<string, string>()
    for (const { where, path, options } of invocations) {
      const key = path.join(" ")
      if (!helps.has(key)) helps.set(key, await help(path))
      const text = helps.get(key)!
      // The help describes the deepest command the words name: `$ <its name> ...` under USAGE.
      const usage = /^\$ (\S+)/m.exec(text)?.[1]
      if (usage !== path[path.length - 1]) problems.push(`${where}: crm ${key} is not a command (help for ${usage})`)
      for (const option of options) {
        if (!new RegExp(`${option}(?![\\w-])`).test(text)) problems.push(`${where}: crm ${key} takes no ${option}`)
      }
    }
    expect(problems).toEqual([])
  })
})

describe("names the docs give the code", () => {
  /** The sources, tests and deployment files (not the docs, not built output). */
  const sourcesUnder = (dir: string): Array<string> =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
          const path = join(dir, entry.name)
          if (entry.isDirectory()) return ["node_modules", "dist"].includes(entry.name) ? [] : sourcesUnder(path)
          return /\.(?:ts|js|sh)$/.test(entry.name) && path !== join("test", "docs.test.ts") ? [path] : []
        })
      : []
  const code = [...["packages", "examples", "test"].flatMap(sourcesUnder), ".ci/run", "Dockerfile", "compose.yaml"]
    .map(read)
    .join("\n")
  const prose = current.map((doc) => doc.text).join("\n")

  it("every CRM_* and BENCH_* variable the docs mention is read by the code", () => {
    const problems = current.flatMap((doc) =>
      [...doc.text.matchAll(/\b(?:CRM|BENCH)_[A-Z0-9_]*[A-Z0-9]\b/g)]
        .filter((match) => !new RegExp(`\\b${match[0]}\\b`).test(code))
        .map((match) => `${doc.path}:${lineAt(doc.text, match.index)}: ${match[0]}`)
    )
    expect(problems).toEqual([])
  })

  it("every variable the apps read is documented", () => {
    // `Config.string("NAME")`, and `Config.literal(...)("NAME")`.
    const names = sourcesUnder("examples").flatMap((path) =>
      [...read(path).matchAll(/(?:Config\.\w+|\))\("([A-Z][A-Z0-9_]+)"\)/g)].map((match) => match[1]!)
    )
    expect(names.length).toBeGreaterThan(10)
    expect([...new Set(names)].filter((name) => !new RegExp(`\\b${name}\\b`).test(prose))).toEqual([])
  })

  it("every file the docs name exists", () => {
    const problems = current.flatMap((doc) =>
      [...doc.text.matchAll(/(?<![\w./-])((?:\.ci|test|packages|examples|docs)\/[\w./@-]*[\w/])/g)]
        .filter((match) => !match[1]!.includes("*") && !existsSync(join(root, match[1]!)))
        .map((match) => `${doc.path}:${lineAt(doc.text, match.index)}: ${match[1]}`)
    )
    expect(problems).toEqual([])
  })
})

describe("HTTP paths named in the docs", () => {
  const document = Api.openApiDocument() as { paths: Record<string, Record<string, unknown>> }
  const operations = Object.entries(document.paths).map(([path, methods]) => ({
    segments: path.split("/").slice(1),
    methods: new Set(Object.keys(methods).map((method) => method.toUpperCase()))
  }))
  /** Served beside the API, outside its OpenAPI document. */
  const outside = new Set(["/metrics", "/api/mcp", "/docs", "/docs/", "/admin", "/admin/"])

  /** `{a,b}` and `a|b` in a segment are alternatives; `{id}`, `$VAR`, `<...>` and `…` stand for a value. */
  const expand = (path: string): Array<Array<string>> =>
    path
      .split("/")
      .slice(1)
      .reduce<Array<Array<string>>>(
        (paths, segment) => {
          const braces = /^\{([^}]*,[^}]*)\}$/.exec(segment)
          const alternatives =
            braces !== null ? braces[1]!.split(",") : segment.includes("|") ? segment.split("|") : [segment]
          return paths.flatMap((prefix) => alternatives.map((alternative) => [...prefix, alternative]))
        },
        [[]]
      )
  const isValue = (segment: string) => /^(?:\{[^},]+\}|\$\w+|\$\{\w+\}|<.*>|…|\.\.\.)$/.test(segment)
  const matches = (segments: ReadonlyArray<string>, template: ReadonlyArray<string>) =>
    segments.length === template.length &&
    segments.every((segment, index) => {
      const expected = template[index]!
      const parameter = /^\{[^}]+\}$/.test(expected)
      return /^\{[^},]+\}$/.test(segment) ? parameter : isValue(segment) || parameter || segment === expected
    })
  const served = (path: string, method: string | undefined) =>
    expand(path).every((segments) =>
      operations.some(
        (operation) =>
          matches(segments, operation.segments) &&
          (method === undefined || method === "HEAD" || operation.methods.has(method))
      )
    )
  const withoutQuery = (path: string) => path.replace(/[?#].*$/, "").replace(/[.,:;]+$/, "")

  it("every /api/v1 and /admin/v1 path is in the OpenAPI document", () => {
    const problems = current.flatMap((doc) =>
      [...doc.text.replace(/\$\{?API\}?/g, "/api/v1").matchAll(/\/(?:api|admin)\/v1(?:\/[\w.{}$@%|,<>~…-]+)+/g)]
        .map((match) => ({ path: withoutQuery(match[0]), line: lineAt(doc.text, match.index) }))
        .filter(({ path }) => !served(path, undefined))
        .map(({ path, line }) => `${doc.path}:${line}: ${path}`)
    )
    expect(problems).toEqual([])
  })

  it("every `METHOD /path` and curl call is an operation of the document (paths under /api/v1 unless they say)", () => {
    const problems: Array<string> = []
    for (const doc of current) {
      for (const span of doc.spans) {
        const match = /^(GET|POST|PUT|PATCH|DELETE|HEAD) (\/\S*)/.exec(span.text)
        if (match === null) continue
        const [, method, given] = match as unknown as [string, string, string]
        const path = withoutQuery(given)
        if (outside.has(path)) continue
        const absolute = /^\/(?:api|admin)\//.test(path)
        const ok = absolute ? served(path, method) : served(`/api/v1${path}`, method) || served(path, method)
        if (!ok) problems.push(`${at(doc, span)}: ${method} ${given}`)
      }
      for (const line of shellLines(doc)) {
        for (const call of line.text.replace(/\$\{?API\}?/g, "/api/v1").matchAll(/\bcurl\b([^|;)]*)/g)) {
          const args = call[1]!
          const url = /\/(?:api|admin)\/v1(?:\/[^\s"'?&]*)?/.exec(args)?.[0]
          if (url === undefined) continue
          const method =
            /(?:-X|--request)\s+([A-Z]+)/.exec(args)?.[1] ?? (/\s(?:-d|--data[\w-]*|-F)\s/.test(args) ? "POST" : "GET")
          if (!served(withoutQuery(url), method)) problems.push(`${at(doc, line)}: curl ${method} ${url}`)
        }
      }
    }
    expect(problems).toEqual([])
  })
})

describe("snippets", () => {
  it("every JSON block parses, and the settings example is a valid settings document", () => {
    for (const doc of current) {
      for (const fence of doc.fences.filter((fence) => fence.lang === "json")) {
        expect(() => JSON.parse(fence.text), at(doc, fence)).not.toThrow()
      }
    }
    const settings = parse(join("docs", "settings.md")).fences.find((fence) => fence.lang === "json")!
    const parsed = Settings.SettingsInput.safeParse(JSON.parse(settings.text))
    expect(parsed.success ? [] : parsed.error.issues).toEqual([])
  })

  it("the TypeScript snippets import and use what the packages export", async () => {
    const modules: Record<string, Record<string, unknown>> = {
      "@crm/core": await import("@crm/core"),
      "@crm/storage-memory": await import("@crm/storage-memory"),
      "@crm/storage-pg": await import("@crm/storage-pg"),
      "@crm/testing": await import("@crm/testing"),
      "@crm/client": await import("@crm/client")
    }
    /** What a fragment without imports means by a name: the examples' usual imports. */
    const usual: Record<string, unknown> = {
      ...modules["@crm/testing"],
      ...modules["@crm/core"],
      StorageMemory: modules["@crm/storage-memory"],
      StoragePg: modules["@crm/storage-pg"]
    }
    const problems: Array<string> = []
    let checked = 0
    for (const doc of current) {
      for (const fence of doc.fences.filter((fence) => ["ts", "typescript"].includes(fence.lang))) {
        const names: Record<string, unknown> = { ...usual }
        for (const [, what, from] of fence.text.matchAll(/^import\s+(.+?)\s+from\s+"([^"]+)"/gm) as Iterable<
          [string, string, string]
        >) {
          if (!from.startsWith("@crm/")) {
            for (const name of what.replace(/[{}*]|\bas\b/g, " ").split(/[\s,]+/)) delete names[name]
            continue
          }
          const module = modules[from]
          if (module === undefined) {
            problems.push(`${at(doc, fence)}: ${from} is not a package the docs may import`)
            continue
          }
          const star = /^\*\s+as\s+(\w+)$/.exec(what)
          if (star !== null) names[star[1]!] = module
          for (const [, imported, local] of what.matchAll(/(\w+)(?:\s+as\s+(\w+))?/g) as Iterable<
            [string, string, string?]
          >) {
            if (star !== null) break
            if (!(imported in module)) problems.push(`${at(doc, fence)}: ${from} exports no ${imported}`)
            names[local ?? imported] = module[imported]
          }
        }
        for (const [, owner, member] of fence.text.matchAll(/\b([A-Z]\w*)\.(\w+)/g) as Iterable<
          [string, string, string]
        >) {
          const value = names[owner]
          if (value === undefined || value === null) continue
          checked++
          if (!(member in (value as object))) problems.push(`${at(doc, fence)}: ${owner}.${member} does not exist`)
        }
      }
    }
    expect(checked).toBeGreaterThan(10)
    expect(problems).toEqual([])
  })
})

describe("the MCP guide", () => {
  it("lists every tool the server offers, with its scope, and no other", () => {
    const rows = parse(join("docs", "mcp.md"))
      .text.split("\n")
      .filter((line) => /^\| `[a-z_]+`/.test(line))
      .flatMap((line) => {
        const [names, scope] = line.split("|").slice(1, 3) as [string, string]
        return [...names.matchAll(/`([a-z_]+)`/g)].map((match) => [match[1]!, scope.trim()] as const)
      })
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(tools.map((tool) => [tool.name, tool.scope])))
  })
})

describe("links", () => {
  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
  const anchors = (doc: Doc): Set<string> => {
    const seen = new Map<string, number>()
    const result = new Set<string>()
    for (const [, heading] of doc.prose.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm) as Iterable<[string, string]>) {
      const base = heading
        .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .trim()
        .replace(/\s/g, "-")
      const count = seen.get(base) ?? 0
      seen.set(base, count + 1)
      result.add(count === 0 ? base : `${base}-${count}`)
    }
    return result
  }
  const byPath = new Map(docs.map((doc) => [doc.path, doc]))

  it("every relative link points to a file that exists, and every anchor to a heading", () => {
    const problems: Array<string> = []
    let checked = 0
    for (const doc of docs) {
      const prose = doc.prose.replace(/`[^`]*`/g, (span) => " ".repeat(span.length))
      for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue
        checked++
        const where = `${doc.path}:${lineAt(prose, match.index)}`
        const [file, anchor] = target.split("#") as [string, string?]
        const path = file === "" ? doc.path : relative(root, resolve(root, dirname(doc.path), file))
        if (!existsSync(join(root, path))) {
          problems.push(`${where}: ${target} (no ${path})`)
          continue
        }
        if (anchor === undefined) continue
        const linked = byPath.get(path) ?? (path.endsWith(".md") ? parse(path) : undefined)
        if (linked !== undefined && !anchors(linked).has(anchor))
          problems.push(`${where}: ${target} (no heading #${anchor})`)
      }
    }
    expect(checked).toBeGreaterThan(50)
    expect(problems).toEqual([])
  })
})
