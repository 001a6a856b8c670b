/**
 * Summarises a V8 `.cpuprofile` (as written by `node --cpu-prof`): self time by function, by file
 * and by package, optionally only for samples inside given time windows (the measured load
 * phases, so start-up and idle gaps between runs do not dilute the figures).
 *
 * Standalone: `node --import tsx test/bench/profile.ts <file.cpuprofile> [top]`
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

export interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  /** Microseconds on the monotonic clock (the one `process.hrtime` reads on Linux). */
  readonly startTime: number
  readonly endTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** A span of the monotonic clock, in microseconds. */
export interface Window {
  readonly from: number
  readonly to: number
  /** Requests completed in the window, for a per-request cost. */
  readonly requests?: number
  /** CPU time the process was charged in the window (from /proc), to compare with the samples. */
  readonly cpuMs?: number
}

export interface Row {
  readonly name: string
  readonly ms: number
  /** Share of the busy (non-idle) time in the windows. */
  readonly share: number
}

export interface Summary {
  /** Requests completed in the windows, when known. */
  readonly requests: number | undefined
  /** CPU time charged to the process in the windows, when known. */
  readonly cpuMs: number | undefined
  readonly windowMs: number
  readonly sampledMs: number
  readonly idleMs: number
  readonly busyMs: number
  readonly gcMs: number
  readonly byFunction: ReadonlyArray<Row>
  readonly byFile: ReadonlyArray<Row>
  readonly byPackage: ReadonlyArray<Row>
  /** Node internals and V8 builtins charged to the nearest caller that belongs to a package. */
  readonly byPackageCharged: ReadonlyArray<Row>
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url))

const META = new Set(["(root)", "(program)", "(idle)", "(garbage collector)"])

/** Which package (or runtime part) a frame belongs to. */
export const packageOf = (frame: CallFrame): string => {
  const { functionName, url } = frame
  if (META.has(functionName)) return functionName
  if (url === "") return "(V8 builtins / native)"
  if (url.startsWith("wasm://")) return "(wasm)"
  if (url.startsWith("node:")) {
    const rest = url.slice("node:".length).replace(/^internal\/(deps\/)?/, "")
    return `node:${rest.split("/")[0]!.replace(/\.js$/, "")}`
  }
  const path = url.startsWith("file://") ? fileURLToPath(url) : url
  const nm = path.lastIndexOf("/node_modules/")
  if (nm >= 0) {
    const parts = path.slice(nm + "/node_modules/".length).split("/")
    return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!
  }
  const workspace = /\/(packages|examples)\/([^/]+)\//.exec(path)
  if (workspace !== null) return workspace[1] === "examples" ? `@crm/${workspace[2]} (example)` : `@crm/${workspace[2]}`
  if (path.startsWith(ROOT)) return `(repo) ${path.slice(ROOT.length).split("/")[0]}`
  return path
}

const shortFile = (url: string): string => {
  if (url === "") return "(native)"
  const path = url.startsWith("file://") ? fileURLToPath(url) : url
  const nm = path.lastIndexOf("/node_modules/")
  if (nm >= 0) return path.slice(nm + "/node_modules/".length)
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path
}

// ---- Positions in TypeScript sources -------------------------------------------------------
// tsx compiles each .ts file with esbuild (minifyWhitespace, keepNames), so V8 reports every
// function of a source file at line 1 and some column. Redoing the same transform with a source
// map gives the original line back. The mapping is used for a file only if it puts the file's
// named functions on lines that mention their names, so a transform that drifted from tsx's
// shows columns instead of wrong lines.

interface Mapper {
  readonly line: (generatedLine: number, column: number) => number | undefined
  readonly text: (line: number) => string
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/** Per generated line: [generated column, original line] pairs (0-based), from a v3 source map. */
const decodeMappings = (mappings: string): ReadonlyArray<ReadonlyArray<readonly [number, number]>> =>
  decodeBundle(mappings).map((segments) => segments.map(([column, _source, line]) => [column, line] as const))

type Transform = (source: string, options: Record<string, unknown>) => { code: string; map: string }
let transformSync: Transform | undefined
try {
  // esbuild comes with tsx; without it, positions stay as columns.
  transformSync = ((await import("esbuild")) as unknown as { transformSync: Transform }).transformSync
} catch {
  transformSync = undefined
}

const mappers = new Map<string, Mapper | undefined>()

const mapperFor = (url: string, namedFrames: ReadonlyArray<CallFrame>): Mapper | undefined => {
  if (mappers.has(url)) return mappers.get(url)
  let mapper: Mapper | undefined
  try {
    const path = fileURLToPath(url)
    if (transformSync === undefined || !/\.(c|m)?tsx?$/.test(path) || path.includes("/node_modules/"))
      throw new Error("n/a")
    const source = readFileSync(path, "utf8")
    const result = transformSync(source, {
      loader: path.endsWith("x") ? "tsx" : "ts",
      format: "esm",
      target: `node${process.versions.node}`,
      sourcemap: "external",
      minifyWhitespace: true,
      keepNames: true,
      sourcefile: path
    })
    const generated = decodeMappings((JSON.parse(result.map) as { mappings: string }).mappings)
    const lines = source.split("\n")
    const line = (generatedLine: number, column: number): number | undefined => {
      const segments = generated[generatedLine] ?? []
      let lo = 0
      let hi = segments.length - 1
      let found: number | undefined
      while (lo <= hi) {
        const mid = (lo + hi) >> 1
        if (segments[mid]![0] <= column) {
          found = segments[mid]![1]
          lo = mid + 1
        } else hi = mid - 1
      }
      return found
    }
    // Names that occur in the source (not esbuild's own helpers such as `__name`).
    const checked = namedFrames.filter(
      (frame) =>
        /^[A-Za-z_$][\w$]*$/.test(frame.functionName) &&
        source.includes(frame.functionName) &&
        !frame.functionName.startsWith("__")
    )
    const good = checked.filter((frame) => {
      const at = line(frame.lineNumber, frame.columnNumber)
      return at !== undefined && [at - 1, at, at + 1].some((i) => lines[i]?.includes(frame.functionName))
    })
    const text = (at: number) => (lines[at] ?? "").trim().slice(0, 70)
    mapper = checked.length === 0 || good.length / checked.length >= 0.8 ? { line, text } : undefined
  } catch {
    mapper = undefined
  }
  mappers.set(url, mapper)
  return mapper
}

// ---- Positions in a bundle (the built server's dist/cli.js) ---------------------------------
// The built server is one minified file with a source map beside it (`cli.js.map`, with the
// sources' texts). A frame in it is read back as the source's own frame: its file (so the package
// columns say `effect`, `pg` or `@crm/http` rather than the bundle) and its line.

interface BundleMap {
  readonly sources: ReadonlyArray<string>
  readonly contents: ReadonlyArray<string | null>
  /** Per generated line: [generated column, source index, source line, source column], 0-based. */
  readonly lines: ReadonlyArray<ReadonlyArray<readonly [number, number, number, number]>>
}

const decodeBundle = (mappings: string): BundleMap["lines"] => {
  const out: Array<Array<readonly [number, number, number, number]>> = []
  let source = 0
  let sourceLine = 0
  let sourceColumn = 0
  for (const generatedLine of mappings.split(";")) {
    const segments: Array<readonly [number, number, number, number]> = []
    let column = 0
    for (const segment of generatedLine.split(",")) {
      if (segment === "") continue
      const values: Array<number> = []
      let value = 0
      let shift = 0
      for (const char of segment) {
        const digit = BASE64.indexOf(char)
        value += (digit & 31) << shift
        if (digit & 32) shift += 5
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1)
          value = 0
          shift = 0
        }
      }
      column += values[0]!
      if (values.length >= 4) {
        source += values[1]!
        sourceLine += values[2]!
        sourceColumn += values[3]!
        segments.push([column, source, sourceLine, sourceColumn])
      }
    }
    out.push(segments)
  }
  return out
}

const bundleMaps = new Map<string, BundleMap | undefined>()

const bundleMapFor = (url: string): BundleMap | undefined => {
  if (bundleMaps.has(url)) return bundleMaps.get(url)
  let map: BundleMap | undefined
  try {
    const path = fileURLToPath(url)
    const raw = JSON.parse(readFileSync(`${path}.map`, "utf8")) as {
      sources: Array<string>
      sourcesContent?: Array<string | null>
      mappings: string
    }
    const dir = path.slice(0, path.lastIndexOf("/") + 1)
    map = {
      sources: raw.sources.map((source) => new URL(source, `file://${dir}`).href),
      contents: raw.sourcesContent ?? [],
      lines: decodeBundle(raw.mappings)
    }
  } catch {
    map = undefined
  }
  bundleMaps.set(url, map)
  return map
}

const splitSources = new WeakMap<BundleMap, Map<number, ReadonlyArray<string>>>()

const sourceLines = (map: BundleMap, source: number): ReadonlyArray<string> => {
  const known = splitSources.get(map) ?? new Map<number, ReadonlyArray<string>>()
  splitSources.set(map, known)
  const lines = known.get(source) ?? (map.contents[source] ?? "").split("\n")
  known.set(source, lines)
  return lines
}

/** Frames read back from a bundle: their line is the source's already, and `text` is its line. */
const fromBundle = new WeakMap<CallFrame, string>()

/** A bundle's frame as its source's frame (same name), or the frame itself. */
export const unbundle = (frame: CallFrame): CallFrame => {
  if (!frame.url.startsWith("file://") || !frame.url.endsWith(".js") || frame.url.includes("/node_modules/"))
    return frame
  const map = bundleMapFor(frame.url)
  const segments = map?.lines[frame.lineNumber]
  if (map === undefined || segments === undefined) return frame
  let lo = 0
  let hi = segments.length - 1
  let found: readonly [number, number, number, number] | undefined
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (segments[mid]![0] <= frame.columnNumber) {
      found = segments[mid]
      lo = mid + 1
    } else hi = mid - 1
  }
  if (found === undefined) return frame
  const [, source, line, column] = found
  const mapped: CallFrame = {
    functionName: frame.functionName,
    url: map.sources[source]!,
    lineNumber: line,
    columnNumber: column
  }
  fromBundle.set(mapped, (sourceLines(map, source)[line] ?? "").trim().slice(0, 70))
  return mapped
}

let framesByUrl = new Map<string, Array<CallFrame>>()

/** `line` (1-based) and, for an anonymous function of a TypeScript source, the line itself. */
const position = (frame: CallFrame): string => {
  const text = fromBundle.get(frame)
  if (text !== undefined)
    return frame.functionName === "" ? `${frame.lineNumber + 1}  «${text}»` : String(frame.lineNumber + 1)
  if (/\.(c|m)?tsx?$/.test(frame.url)) {
    const mapper = mapperFor(frame.url, framesByUrl.get(frame.url) ?? [])
    const line = mapper?.line(frame.lineNumber, frame.columnNumber)
    if (mapper === undefined || line === undefined)
      return `${frame.lineNumber + 1}:${frame.columnNumber + 1} (generated)`
    return frame.functionName === "" ? `${line + 1}  «${mapper.text(line)}»` : String(line + 1)
  }
  return String(frame.lineNumber + 1)
}

const functionLabel = (frame: CallFrame): string => {
  if (META.has(frame.functionName)) return frame.functionName
  const name = frame.functionName === "" ? "(anonymous)" : frame.functionName
  if (frame.url === "") return `${name} [native]`
  return `${name} ${shortFile(frame.url)}:${position(frame)}`
}

const isForeign = (pkg: string): boolean =>
  pkg.startsWith("node:") || pkg === "(V8 builtins / native)" || pkg === "(program)" || pkg === "(garbage collector)"

const top = (totals: Map<string, number>, busyMs: number, n: number): ReadonlyArray<Row> =>
  [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, ms, share: busyMs === 0 ? 0 : ms / busyMs }))

export const summarise = (profile: CpuProfile, windows: ReadonlyArray<Window> | undefined, n = 25): Summary => {
  const byId = new Map<number, ProfileNode>()
  const parent = new Map<number, number>()
  framesByUrl = new Map()
  const frames = new Map<number, CallFrame>()
  for (const node of profile.nodes) {
    frames.set(node.id, unbundle(node.callFrame))
    const list = framesByUrl.get(node.callFrame.url) ?? []
    list.push(node.callFrame)
    framesByUrl.set(node.callFrame.url, list)
    byId.set(node.id, node)
    for (const child of node.children ?? []) parent.set(child, node.id)
  }

  // Self time per node: each sample lasts until the next one (its delta is on the next sample).
  const selfUs = new Map<number, number>()
  let t = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!
    const duration = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1]! : 0
    if (windows !== undefined && !windows.some((w) => t >= w.from && t < w.to)) continue
    const id = profile.samples[i]!
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, duration))
  }

  const fn = new Map<string, number>()
  const file = new Map<string, number>()
  const pkg = new Map<string, number>()
  const charged = new Map<string, number>()
  let sampledMs = 0
  let idleMs = 0
  let gcMs = 0
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms)

  for (const [id, us] of selfUs) {
    const ms = us / 1000
    sampledMs += ms
    const frame = frames.get(id)!
    if (frame.functionName === "(idle)") {
      idleMs += ms
      continue
    }
    if (frame.functionName === "(garbage collector)") gcMs += ms
    const own = packageOf(frame)
    add(fn, `${functionLabel(frame)}  {${own}}`, ms)
    add(file, META.has(frame.functionName) ? frame.functionName : shortFile(frame.url), ms)
    add(pkg, own, ms)
    // Walk up to the first caller that is a package frame; GC and (program) have no caller.
    let chargedTo = own
    if (isForeign(own) && own !== "(program)" && own !== "(garbage collector)") {
      let cursor = parent.get(id)
      while (cursor !== undefined) {
        const candidate = packageOf(frames.get(cursor)!)
        if (!isForeign(candidate) && candidate !== "(root)") {
          chargedTo = candidate
          break
        }
        cursor = parent.get(cursor)
      }
    }
    add(charged, chargedTo, ms)
  }

  const busyMs = sampledMs - idleMs
  const windowMs =
    windows === undefined
      ? (profile.endTime - profile.startTime) / 1000
      : windows.reduce((sum, w) => sum + (w.to - w.from) / 1000, 0)
  const known = windows?.every((w) => w.requests !== undefined) === true
  return {
    requests: known ? windows!.reduce((sum, w) => sum + w.requests!, 0) : undefined,
    cpuMs:
      windows?.every((w) => w.cpuMs !== undefined) === true ? windows.reduce((sum, w) => sum + w.cpuMs!, 0) : undefined,
    windowMs,
    sampledMs,
    idleMs,
    busyMs,
    gcMs,
    byFunction: top(fn, busyMs, n),
    byFile: top(file, busyMs, n),
    byPackage: top(pkg, busyMs, n),
    byPackageCharged: top(charged, busyMs, n)
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)}%`

const table = (title: string, rows: ReadonlyArray<Row>, requests: number | undefined): string =>
  [
    title,
    ...rows.map(
      (row, i) =>
        `  ${String(i + 1).padStart(2)}. ${pct(row.share)} ${row.ms.toFixed(0).padStart(7)} ms` +
        (requests === undefined || requests === 0
          ? ""
          : ` ${((row.ms * 1000) / requests).toFixed(1).padStart(6)} µs/req`) +
        `  ${row.name}`
    )
  ].join("\n")

export const format = (summary: Summary, label: string): string =>
  [
    `CPU profile: ${label}`,
    `  measured windows ${(summary.windowMs / 1000).toFixed(1)} s; sampled ${(summary.sampledMs / 1000).toFixed(1)} s, ` +
      `idle ${(summary.idleMs / 1000).toFixed(1)} s, busy ${(summary.busyMs / 1000).toFixed(1)} s ` +
      `(${pct(summary.windowMs === 0 ? 0 : summary.busyMs / summary.windowMs).trim()} of one core), ` +
      `GC ${pct(summary.busyMs === 0 ? 0 : summary.gcMs / summary.busyMs).trim()} of busy` +
      (summary.requests === undefined || summary.requests === 0
        ? ""
        : `; ${summary.requests} requests, ${((summary.busyMs * 1000) / summary.requests).toFixed(0)} µs busy per request`),
    ...(summary.cpuMs === undefined
      ? []
      : [
          `  CPU time charged to the process in the same windows (/proc): ${(summary.cpuMs / 1000).toFixed(1)} s` +
            (summary.requests === undefined || summary.requests === 0
              ? ""
              : `, ${((summary.cpuMs * 1000) / summary.requests).toFixed(0)} µs per request`) +
            `. V8 samples the JS thread by wall clock whenever it is not idle, so "busy" also counts time spent` +
            ` blocked or preempted inside a call (mostly writev and (program)): read those rows as wall time, not CPU.`
        ]),
    "  (shares below are of busy time; µs/req = self time per completed request, all routes together)",
    table("Self time by function (top):", summary.byFunction, summary.requests),
    table("Self time by package:", summary.byPackage, summary.requests),
    table(
      "Self time by package, node internals and V8 builtins charged to the nearest package caller:",
      summary.byPackageCharged,
      summary.requests
    ),
    table("Self time by file (top):", summary.byFile, summary.requests)
  ].join("\n")

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2]
  if (file === undefined) {
    console.error("usage: node --import tsx test/bench/profile.ts <file.cpuprofile> [top]")
    process.exit(2)
  }
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  console.log(format(summarise(profile, undefined, Number(process.argv[3] ?? 25)), file))
}
